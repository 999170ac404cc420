#include "model/util/utf8_repair.h"

#include <cstring>

namespace jfp {

namespace {

constexpr size_t kChunk = 1 << 16;

// Length of the well-formed sequence at s[i] (RFC 3629), 0 when none; -1 when the bytes so far are a valid
// prefix cut by the end of the buffer (more may come).
int sequence(const std::string &s, size_t i) {
    auto c = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    unsigned char b = c(0);
    if (b < 0x80) return 1;
    int len = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (len == 0) return 0;
    unsigned char lo = 0x80, hi = 0xbf;
    if (b == 0xe0) lo = 0xa0;
    if (b == 0xed) hi = 0x9f;
    if (b == 0xf0) lo = 0x90;
    if (b == 0xf4) hi = 0x8f;
    for (int k = 1; k < len; ++k) {
        if (i + static_cast<size_t>(k) >= s.size()) return -1;
        unsigned char x = c(static_cast<size_t>(k));
        if (k == 1 ? (x < lo || x > hi) : (x < 0x80 || x > 0xbf)) return 0;
    }
    return len;
}

// Repairs raw into out; keeps a cut sequence at raw's end unless at_end.
size_t repair_into(std::string &raw, std::string &out, bool at_end, const char *escape) {
    static const char kHex[] = "0123456789abcdef";
    size_t repaired = 0, i = 0;
    while (i < raw.size()) {
        int len = sequence(raw, i);
        if (len < 0 && !at_end) break;
        if (len <= 0) {
            auto b = static_cast<unsigned char>(raw[i]);
            out += escape;
            out += kHex[b >> 4];
            out += kHex[b & 15];
            ++repaired;
            ++i;
            continue;
        }
        out.append(raw, i, static_cast<size_t>(len));
        i += static_cast<size_t>(len);
    }
    raw.erase(0, i);
    return repaired;
}

}  // namespace

bool Utf8RepairBuf::fill_raw() {
    if (eof_) return false;
    if (in_) {
        char buf[kChunk];
        size_t n = std::fread(buf, 1, sizeof buf, in_);
        if (n == 0) eof_ = true;
        raw_.append(buf, n);
    } else {
        size_t n = text_ ? std::min(kChunk, text_->size() - text_pos_) : 0;
        if (n == 0) eof_ = true;
        if (n) raw_.append(*text_, text_pos_, n);
        text_pos_ += n;
    }
    return true;
}

Utf8RepairBuf::int_type Utf8RepairBuf::underflow() {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    out_.clear();
    while (out_.empty()) {
        if (!fill_raw() && raw_.empty()) return traits_type::eof();
        repaired_ += repair_into(raw_, out_, eof_, "\\\\x");
        if (eof_ && raw_.empty() && out_.empty()) return traits_type::eof();
    }
    setg(out_.data(), out_.data(), out_.data() + out_.size());
    return traits_type::to_int_type(*gptr());
}

std::string repair_utf8(const std::string &text, const char *escape) {
    std::string raw = text, out;
    repair_into(raw, out, true, escape);
    return out;
}

}  // namespace jfp
