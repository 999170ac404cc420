#include "model/script/script_normalizer.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace jfp {

namespace {

enum : uint8_t { kPlain = 0, kBlank, kHash, kQuote, kEscape, kMeta };

constexpr std::array<uint8_t, 256> byte_classes() {
    std::array<uint8_t, 256> t{};
    for (unsigned char c : {' ', '\t', '\r', '\v', '\f'}) t[c] = kBlank;
    t['#'] = kHash;
    t['\''] = t['"'] = kQuote;
    t['\\'] = kEscape;
    // The shell's metacharacters end a word: a '#' after one starts a comment ("exit 2;#v2").
    for (unsigned char c : {';', '&', '|', '(', ')', '<', '>'}) t[c] = kMeta;
    return t;
}
constexpr std::array<uint8_t, 256> kClass = byte_classes();

// Characters no quoting changes the meaning of, wherever they stand in a word: letters, digits, bytes of
// UTF-8 sequences, and _ . / , + @ % : - (not '=', which makes an assignment of a first word, nor '~', '{',
// '*', '?', '[', '$', which expand).
constexpr std::array<bool, 256> inert_bytes() {
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c)
        t[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
    for (unsigned char c : {'_', '.', '/', ',', '+', '@', '%', ':', '-'}) t[c] = true;
    return t;
}
constexpr std::array<bool, 256> kInert = inert_bytes();

bool inert(char c) { return kInert[static_cast<unsigned char>(c)]; }

}  // namespace

bool comment_line(std::string_view line) {
    const size_t look = std::min<size_t>(line.size(), 65);
    for (size_t i = 0; i < look; ++i) {
        const uint8_t k = kClass[static_cast<unsigned char>(line[i])];
        if (k != kBlank) return k == kHash;
    }
    return false;
}

// Plain bytes are copied in a tight loop: the byte-by-byte state machine measured 2 ns a byte, this under 1.
// The state is held in locals while a line is read: stores through a char pointer may alias a member, and
// the compiler would reload the count after each byte.
bool LineNormalizer::line(std::string_view line) {
    char *const out = out_;
    const size_t cap = cap_;
    size_t n = n_, i = 0;
    bool pending_blank = pending_blank_, word_start = word_start_, continues = false;
    const size_t len = line.size();
    auto put = [&](char c) {
        if (n < cap) out[n++] = c;
    };
    while (i < len && n < cap) {
        const char c = line[i];
        const uint8_t k = kClass[static_cast<unsigned char>(c)];
        if (k == kBlank) {
            pending_blank = n > 0;
            word_start = true;
            ++i;
            continue;
        }
        if (k == kHash && word_start) break;
        // Backslash-newline: removed, and the next raw line goes on where this one stops.
        if (k == kEscape && i + 1 == len) {
            continues = true;
            break;
        }
        if (pending_blank) put(' '), pending_blank = false;
        word_start = false;
        if (k == kPlain || k == kHash) {
            put(c);
            ++i;
            const size_t lim = std::min(len, i + (cap - std::min(n, cap)));
            while (i < lim && kClass[static_cast<unsigned char>(line[i])] == kPlain) out[n++] = line[i++];
        } else if (k == kMeta) {
            put(c);
            ++i;
            word_start = true;
        } else if (k == kEscape) {
            // "\s" is s; "\$" stays as it is.
            if (!inert(line[i + 1])) put(c);
            put(line[i + 1]);
            i += 2;
        } else {
            // A quoted string: its text alone when the quotes change nothing in it ("srun" is srun), else as
            // it stands, blanks and '#' included.
            size_t close = i + 1;
            bool plain = true;
            while (close < len && line[close] != c) {
                plain = plain && inert(line[close]);
                if (c == '"' && line[close] == '\\' && close + 1 < len) ++close, plain = false;
                ++close;
            }
            if (close == len) open_quote_ = true;
            const bool bare = plain && close < len && close > i + 1;
            for (size_t j = bare ? i + 1 : i, e = bare ? close : std::min(close + 1, len); j < e; ++j) put(line[j]);
            i = std::min(close + 1, len);
        }
    }
    n_ = n;
    pending_blank_ = pending_blank;
    word_start_ = word_start;
    return continues;
}

size_t LineNormalizer::finish() {
    // A ';' that ends a line ends a command the newline would end ("exit 2;" is "exit 2"); not ";;" (case),
    // nor one escaped ("\;" of find -exec: an odd run of backslashes before it), nor one inside a quote the
    // line leaves open.
    if (!open_quote_ && n_ > 0 && out_[n_ - 1] == ';' && (n_ < 2 || out_[n_ - 2] != ';')) {
        size_t slashes = 0;
        while (slashes + 2 <= n_ && out_[n_ - 2 - slashes] == '\\') ++slashes;
        if (slashes % 2 == 0) {
            --n_;
            while (n_ > 0 && out_[n_ - 1] == ' ') --n_;
        }
    }
    // A null command: ':' or 'true' and literal words. Any expansion, redirection or further command keeps it.
    if (n_ > 0 && (out_[0] == ':' || out_[0] == 't')) {
        const std::string_view text(out_, n_);
        const std::string_view first = text.substr(0, text.find(' '));
        if ((first == ":" || first == "true") && text.find_first_of("$`<>;&|()") == std::string_view::npos) n_ = 0;
    }
    return n_;
}

}  // namespace jfp
