// Small string helpers shared by the parsers. Views in, no allocation unless the result is a string.
#pragma once

#include <charconv>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jfp {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

inline std::string_view trim(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && is_space(s[b])) ++b;
    while (e > b && is_space(s[e - 1])) --e;
    return s.substr(b, e - b);
}

inline bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
inline bool ends_with(std::string_view s, std::string_view p) {
    return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

std::string to_lower(std::string_view s);
// A number as a person writes it in a config: 5, 0.5, 1e+06 (printf's %g).
std::string number_text(double v);
// printf's format appended to out: a report built as a string keeps the format its lines were printed with.
void appendf(std::string &out, const char *format, ...) __attribute__((format(printf, 2, 3)));
void vappendf(std::string &out, const char *format, va_list args) __attribute__((format(printf, 2, 0)));
// "1 job", "3 jobs": a count with its noun in the number it takes.
inline std::string counted(uint64_t n, std::string_view one, std::string_view many) {
    return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// Splits on every occurrence of sep; "a||b" gives {"a", "", "b"}; "" gives {""}.
std::vector<std::string_view> split(std::string_view s, char sep);

// Splits into out (cleared first), reusing its capacity: the ingest hot loop.
void split_into(std::string_view s, char sep, std::vector<std::string_view> &out);
// The same with a separator of one or more characters (sacct --delimiter takes a string).
void split_into(std::string_view s, std::string_view sep, std::vector<std::string_view> &out);

inline std::optional<int64_t> parse_int(std::string_view s) {
    int64_t v = 0;
    if (s.empty()) return std::nullopt;
    if (s.front() == '+') s.remove_prefix(1);
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

inline std::optional<double> parse_double(std::string_view s) {
    double v = 0;
    if (s.empty()) return std::nullopt;
    if (s.front() == '+') s.remove_prefix(1);
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

// The one escaper for text a user wrote (a job name, a comment, a script), wherever jfp prints or logs it:
// C0 controls (ESC, newline, ...), DEL and bytes of no well-formed UTF-8 character shown as \xNN; C1
// controls, bidirectional controls and line separators as \uNNNN; cut (with "...") before the character
// that would pass max_len bytes. keep_lines: newline and tab stay (a script shown whole).
// test/source/user_text.sh fails the build when user text reaches output another way.
std::string printable(std::string_view s, size_t max_len = std::string_view::npos, bool keep_lines = false);
// printable() in quotes, cut at 80 bytes by default: 'abc'. For sentences a person reads (an apostrophe
// stays one).
std::string quote_for_message(std::string_view s, size_t max_len = 80);
// The same for a field of a log line that tools and admins split (name='...' p=...): the quote and the
// backslash are escaped too, so user text cannot close the field and forge the ones after it.
std::string quote_log_field(std::string_view s, size_t max_len = 80);

// One field of a CSV line (RFC 4180: quoted when it holds a comma, quote or line break). A field a user
// wrote (a job name) that starts like a spreadsheet formula (= + - @, tab, CR) gets a leading ' so that an
// admin opening the file in a spreadsheet sees text, not a formula that runs.
std::string csv_field(std::string_view s);

}  // namespace jfp
