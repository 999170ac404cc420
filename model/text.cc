#include "text.h"

#include <cstdio>

namespace jfp {

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

std::string quote_for_message(std::string_view s, size_t max_len) {
    std::string out = "'";
    size_t n = 0;
    for (unsigned char c : s) {
        if (n++ >= max_len) {
            out += "...";
            break;
        }
        if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    out += "'";
    return out;
}

}  // namespace jfp
