#include "model/util/text.h"

#include <cstdarg>
#include <cstdio>

namespace jfp {

std::string number_text(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
}

void vappendf(std::string &out, const char *format, va_list args) {
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, format, args);
    if (n > 0) {
        const size_t at = out.size();
        out.resize(at + static_cast<size_t>(n) + 1);
        std::vsnprintf(&out[at], static_cast<size_t>(n) + 1, format, again);
        out.resize(at + static_cast<size_t>(n));
    }
    va_end(again);
}

void appendf(std::string &out, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vappendf(out, format, args);
    va_end(args);
}

std::string to_lower(std::string_view s) {
    std::string out(s);
    for (char &c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    split_into(s, sep, out);
    return out;
}

void split_into(std::string_view s, char sep, std::vector<std::string_view> &out) {
    out.clear();
    size_t start = 0;
    while (true) {
        size_t pos = s.find(sep, start);
        if (pos == std::string_view::npos) {
            out.push_back(s.substr(start));
            return;
        }
        out.push_back(s.substr(start, pos - start));
        start = pos + 1;
    }
}

void split_into(std::string_view s, std::string_view sep, std::vector<std::string_view> &out) {
    if (sep.size() == 1) return split_into(s, sep[0], out);
    out.clear();
    size_t start = 0;
    while (true) {
        size_t pos = sep.empty() ? std::string_view::npos : s.find(sep, start);
        if (pos == std::string_view::npos) {
            out.push_back(s.substr(start));
            return;
        }
        out.push_back(s.substr(start, pos - start));
        start = pos + sep.size();
    }
}

namespace {
// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlongs, surrogates or values past
// U+10FFFF), or 0 when there is none.
size_t utf8_sequence(std::string_view s, size_t i) {
    auto c = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    unsigned char b = c(0);
    size_t len = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return 0;
    unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range depends on the first
    if (b == 0xe0) lo = 0xa0;
    if (b == 0xed) hi = 0x9f;
    if (b == 0xf0) lo = 0x90;
    if (b == 0xf4) hi = 0x8f;
    if (c(1) < lo || c(1) > hi) return 0;
    for (size_t k = 2; k < len; ++k)
        if (c(k) < 0x80 || c(k) > 0xbf) return 0;
    return len;
}
}  // namespace

namespace {

// The code point of a well-formed sequence of len bytes at s[i].
uint32_t code_point(std::string_view s, size_t i, size_t len) {
    auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i + k])); };
    if (len == 2) return ((b(0) & 0x1f) << 6) | (b(1) & 0x3f);
    if (len == 3) return ((b(0) & 0x0f) << 12) | ((b(1) & 0x3f) << 6) | (b(2) & 0x3f);
    return ((b(0) & 0x07) << 18) | ((b(1) & 0x3f) << 12) | ((b(2) & 0x3f) << 6) | (b(3) & 0x3f);
}

// Characters a terminal or an editor acts on rather than shows: C1 controls (U+009B is a CSI, U+009D an OSC
// on many terminals), the bidirectional controls that reorder what is shown (U+202E turns "exe.txt" into
// "txt.exe"), and the line and paragraph separators.
bool acts_on_display(uint32_t cp) {
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

// Shows text as typed (UTF-8 included) but never writes a control character, a character that reorders or
// breaks what is shown, or a broken byte sequence to a terminal or a log; a cut never splits a character.
// quoted: the quote and the backslash are escaped too, so quoted text cannot end its quotes early and forge
// the fields after it (name='x' action=allow) nor pass for an escape jfp wrote.
static std::string render(std::string_view s, size_t max_len, bool keep_lines, bool quoted) {
    std::string out;
    size_t i = 0;
    while (i < s.size()) {
        auto c = static_cast<unsigned char>(s[i]);
        size_t len = c < 0x80 ? 1 : utf8_sequence(s, i);
        bool escape = (c < 0x20 && !(keep_lines && (c == '\n' || c == '\t'))) || c == 0x7f || len == 0 ||
                      (quoted && (c == '\'' || c == '\\'));
        bool escape_char = !escape && len > 1 && acts_on_display(code_point(s, i, len));
        if (escape) len = 1;
        if (i + len > max_len) {
            out += "...";
            break;
        }
        char buf[16];
        if (escape) {
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else if (escape_char) {
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(code_point(s, i, len)));
            out += buf;
        } else {
            out.append(s.substr(i, len));
        }
        i += len;
    }
    return out;
}

std::string printable(std::string_view s, size_t max_len, bool keep_lines) {
    return render(s, max_len, keep_lines, false);
}

std::string quote_for_message(std::string_view s, size_t max_len) {
    return "'" + render(s, max_len, false, false) + "'";
}

std::string quote_log_field(std::string_view s, size_t max_len) {
    return "'" + render(s, max_len, false, true) + "'";
}

std::string csv_field(std::string_view s) {
    std::string v;
    if (!s.empty() && std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos) v = "'";
    v.append(s);
    if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
    std::string out = "\"";
    for (char c : v) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

}  // namespace jfp
