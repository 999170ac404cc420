#include "model/jobs/hostlist.h"

#include <cstdint>

#include "model/util/text.h"

namespace jfp {

namespace {

// One bracket's body ("01-04,7"): its values, zero-padded to the width of each range's lower bound.
bool bracket_values(std::string_view body, size_t cap, std::vector<std::string> &out) {
    for (auto part : split(body, ',')) {
        part = trim(part);
        if (part.empty()) return false;
        auto dash = part.find('-');
        std::string_view lo = part.substr(0, dash), hi = dash == std::string_view::npos ? lo : part.substr(dash + 1);
        if (lo.empty() || hi.empty() || lo.size() > 9 || hi.size() > 9) return false;
        uint64_t a = 0, b = 0;
        for (char c : lo) { if (c < '0' || c > '9') return false; a = a * 10 + static_cast<uint64_t>(c - '0'); }
        for (char c : hi) { if (c < '0' || c > '9') return false; b = b * 10 + static_cast<uint64_t>(c - '0'); }
        if (b < a || b - a >= cap || out.size() + (b - a + 1) > cap) return false;
        for (uint64_t v = a; v <= b; ++v) {
            std::string s = std::to_string(v);
            if (s.size() < lo.size()) s.insert(0, lo.size() - s.size(), '0');
            out.push_back(std::move(s));
        }
    }
    return true;
}

// One comma-free item ("rack[1-2]n[01-04]"): the product of its literal and bracketed parts.
bool expand_item(std::string_view item, size_t cap, std::vector<std::string> &out) {
    std::vector<std::string> names{std::string()};
    size_t i = 0;
    while (i < item.size()) {
        if (item[i] == '[') {
            auto close = item.find(']', i);
            if (close == std::string_view::npos) return false;
            std::vector<std::string> values;
            if (!bracket_values(item.substr(i + 1, close - i - 1), cap, values)) return false;
            if (names.size() * values.size() > cap) return false;
            std::vector<std::string> next;
            next.reserve(names.size() * values.size());
            for (const auto &n : names)
                for (const auto &v : values) next.push_back(n + v);
            names.swap(next);
            i = close + 1;
        } else {
            auto open = item.find('[', i);
            std::string_view lit = item.substr(i, open == std::string_view::npos ? std::string_view::npos : open - i);
            if (lit.find(']') != std::string_view::npos) return false;
            for (auto &n : names) n.append(lit);
            i += lit.size();
        }
    }
    if (out.size() + names.size() > cap) return false;
    for (auto &n : names)
        if (!n.empty()) out.push_back(std::move(n));
    return true;
}

}  // namespace

bool expand_hostlist(std::string_view expr, size_t cap, std::vector<std::string> &out) {
    size_t start = 0;
    int depth = 0;
    for (size_t i = 0; i <= expr.size(); ++i) {
        char c = i < expr.size() ? expr[i] : ',';
        if (c == '[') ++depth;
        else if (c == ']') --depth;
        if (depth < 0 || depth > 1) return false;
        if (c == ',' && depth == 0) {
            auto item = trim(expr.substr(start, i - start));
            if (!item.empty() && !expand_item(item, cap, out)) return false;
            start = i + 1;
        }
    }
    return depth == 0;
}

}  // namespace jfp
