#include "model/script/script_normalizer.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>

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
            put(c);
            put(line[i + 1]);
            i += 2;
        } else {
            // A quoted string is copied as it stands, blanks and '#' included: removing quotes that look
            // inert merged scripts bash runs otherwise (<<'EOF' and <<EOF, "time" and time, "2">f and 2>f).
            put(c);
            ++i;
            while (i < len && line[i] != c) {
                if (c == '"' && line[i] == '\\' && i + 1 < len) put(line[i++]);
                put(line[i++]);
            }
            if (i < len) put(line[i++]);
            else open_quote_ = true;
        }
    }
    // Cut at the cap with input left: what it holds past the cap is unknown (a redirection, say).
    if (n >= cap && i < len) truncated_ = true;
    n_ = n;
    pending_blank_ = pending_blank;
    word_start_ = word_start;
    return continues;
}

namespace {
// The last word of text (after its last blank), and its first.
std::string_view last_word(std::string_view t) { return t.substr(t.rfind(' ') == std::string_view::npos ? 0 : t.rfind(' ') + 1); }
std::string_view first_word(std::string_view t) { return t.substr(0, t.find(' ')); }
bool is_any(std::string_view w, std::initializer_list<std::string_view> words) {
    for (std::string_view x : words)
        if (w == x) return true;
    return false;
}
}  // namespace

bool opens_body(std::string_view line) {
    if (line.empty()) return false;
    const char c = line.back();
    return c == '(' || c == ')' || c == '{' || is_any(last_word(line), {"then", "else", "do", "in"});
}

bool closes_body(std::string_view line) {
    if (line.empty()) return false;
    const char c = line.front();
    return c == '}' || c == ')' || c == ';' || is_any(first_word(line), {"fi", "else", "elif", "done", "esac"});
}

size_t LineNormalizer::finish() {
    // A ';' that ends a line ends a command the newline would end ("exit 2;" is "exit 2"); not ";;" (case),
    // nor one escaped ("\;" of find -exec: an odd run of backslashes before it), nor one inside a quote the
    // line leaves open, nor one bash would refuse there ("then;", "cmd &;", a ';' alone): dropping it would
    // make a syntax error read as the script that fixed it.
    if (!open_quote_ && n_ > 0 && out_[n_ - 1] == ';' && (n_ < 2 || out_[n_ - 2] != ';')) {
        size_t slashes = 0;
        while (slashes + 2 <= n_ && out_[n_ - 2 - slashes] == '\\') ++slashes;
        size_t kept = n_ - 1;
        while (kept > 0 && out_[kept - 1] == ' ') --kept;
        const std::string_view before(out_, kept);
        const bool refused = before.empty() || before.back() == '&' || before.back() == '|' ||
                             is_any(last_word(before), {"then", "else", "do", "{", "in", "!"});
        if (slashes % 2 == 0 && !refused) n_ = kept;
    }
    // A null command: ':' or 'true' and literal words, no expansion, redirection or further command. Written
    // as ':' (both do nothing and succeed); normalize_lines decides whether it may go.
    null_ = false;
    if (n_ > 0 && !truncated_ && (out_[0] == ':' || out_[0] == 't')) {
        const std::string_view text(out_, n_);
        const std::string_view first = first_word(text);
        if ((first == ":" || first == "true") && text.find_first_of("$`<>;&|()") == std::string_view::npos) {
            null_ = true;
            out_[0] = ':';
            n_ = 1;
        }
    }
    return n_;
}

}  // namespace jfp
