// Values of options several subcommands take, parsed one way, with errors that name the option.
#include "tools/options/cli_options.h"

#include <cctype>
#include <cstdlib>

#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

int g_exit_status = 0;

int64_t parse_time_option(const std::string &text, const char *option) {
    auto t = parse_sacct_time(text);
    if (!t)
        throw UsageError(option, "'" + text + "' is not a time; use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (local time, as sacct prints it)");
    return *t;
}

int64_t parse_age_seconds(const std::string &text, const char *option) {
    const std::string expected = std::string(option) + " " + text + ": expected 90d, 12w, 36h or a number of days";
    if (text.empty()) throw UsageError(option, "needs an age: 90d, 12w, 36h or a number of days");
    char unit = text.back();
    bool digit = std::isdigit(static_cast<unsigned char>(unit));
    std::string digits = digit ? text : text.substr(0, text.size() - 1);
    int64_t mult = 86400;
    if (unit == 'h') mult = 3600;
    else if (unit == 'w') mult = 7 * 86400;
    else if (unit != 'd' && !digit) throw UsageError(expected);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
        throw UsageError(expected);
    return std::stoll(digits) * mult;
}

std::string parse_delimiter(const std::string &t) {
    if (t.size() == 1 && t[0] != '\n' && t[0] != '\r') return t;
    if (t == "\\t" || t == "tab" || t == "TAB") return "\t";
    std::string hex;
    if (t.size() == 4 && (t.rfind("\\x", 0) == 0 || t.rfind("0x", 0) == 0)) hex = t.substr(2);
    if (!hex.empty()) {
        char *end = nullptr;
        long v = std::strtol(hex.c_str(), &end, 16);
        if (end && *end == 0 && v > 0 && v < 128 && v != '\n' && v != '\r') return std::string(1, static_cast<char>(v));
    }
    // A string, as sacct --delimiter takes one: a random one per export is what no job name can hold.
    bool printable_ascii = t.size() >= 2 && t.size() <= 64;
    for (char c : t) printable_ascii = printable_ascii && c > ' ' && c < 0x7f;
    if (printable_ascii) return t;
    throw UsageError("--delimiter", "'" + printable(t, 80) + "' is neither one character (e.g. '|', ';', tab, \\x1f) "
                                              "nor a string of 2 to 64 printable characters without spaces (e.g. "
                                              "\"|$(od -An -N8 -tx1 /dev/urandom | tr -d ' \\n')|\")");
}

}  // namespace jfp
