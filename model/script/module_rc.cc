#include "model/script/module_rc.h"

#include "model/util/text.h"

namespace jfp {

namespace {

// The string literal at s[i] ('...' or "...", no escapes, no concatenation), advancing i past it.
bool literal(std::string_view s, size_t &i, std::string &out) {
    while (i < s.size() && is_space(s[i])) ++i;
    if (i >= s.size() || (s[i] != '"' && s[i] != '\'')) return false;
    const char q = s[i];
    size_t end = s.find(q, i + 1);
    if (end == std::string_view::npos) return false;
    out.assign(s.substr(i + 1, end - i - 1));
    if (out.find('\\') != std::string::npos) return false;
    i = end + 1;
    return true;
}

// The Lua call's string arguments, when every one is a literal: name(... "a", "b" ...).
std::vector<std::string> lua_args(std::string_view line, std::string_view name) {
    size_t at = line.find(name);
    if (at == std::string_view::npos) return {};
    size_t i = at + name.size();
    while (i < line.size() && is_space(line[i])) ++i;
    if (i >= line.size() || line[i] != '(') return {};
    ++i;
    std::vector<std::string> args;
    for (std::string a; literal(line, i, a);) {
        args.push_back(a);
        while (i < line.size() && is_space(line[i])) ++i;
        if (i < line.size() && line[i] == ',') {
            ++i;
            continue;
        }
        if (i < line.size() && line[i] == ')') return args;
        return {};
    }
    return {};
}

std::vector<std::string_view> tcl_words(std::string_view line) {
    std::vector<std::string_view> w;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_space(line[i])) ++i;
        size_t start = i;
        while (i < line.size() && !is_space(line[i])) ++i;
        if (i > start) w.push_back(line.substr(start, i - start));
    }
    return w;
}

bool plain_name(std::string_view n) {
    if (n.empty() || n.size() > 200) return false;
    for (char c : n)
        if (is_space(c) || c == '$' || c == '[' || c == ']' || c == '{' || c == '}' || c == '"' || c == '\'') return false;
    return true;
}

// "python/3.11.4" and "3.11-latest" (or "/3.11.4" and "latest" in TCL) give "python/3.11-latest".
std::string symbolic_name(std::string_view full, std::string_view sym, std::string_view module_dir) {
    if (!full.empty() && full.front() == '/') full.remove_prefix(1);
    std::string name;
    size_t slash = full.rfind('/');
    if (slash != std::string_view::npos) name.assign(full.substr(0, slash));
    else name.assign(module_dir);
    if (name.empty() || sym.empty() || sym.find('/') != std::string_view::npos) return {};
    return name + "/" + std::string(sym);
}

}  // namespace

std::vector<std::string> module_rc_names(std::string_view text, std::string_view module_dir, size_t max_names) {
    std::vector<std::string> out;
    auto add = [&](const std::string &n) {
        if (plain_name(n) && out.size() < max_names) out.push_back(n);
    };
    for (size_t pos = 0; pos < text.size() && out.size() < max_names;) {
        size_t nl = text.find('\n', pos);
        std::string_view line = trim(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
        pos = nl == std::string_view::npos ? text.size() : nl + 1;
        if (line.empty() || line.front() == '#' || starts_with(line, "--")) continue;
        if (line.find("module_alias") != std::string_view::npos) {
            auto a = lua_args(line, "module_alias");
            if (a.size() == 2) add(a[0]);
        } else if (line.find("module_version") != std::string_view::npos) {
            auto a = lua_args(line, "module_version");
            for (size_t k = 1; k < a.size(); ++k) add(symbolic_name(a[0], a[k], module_dir));
        } else if (starts_with(line, "module-alias")) {
            auto w = tcl_words(line);
            if (w.size() >= 3 && w[0] == "module-alias") add(std::string(w[1]));
        } else if (starts_with(line, "module-version")) {
            auto w = tcl_words(line);
            if (w.size() >= 3 && w[0] == "module-version")
                for (size_t k = 2; k < w.size(); ++k) add(symbolic_name(w[1], w[k], module_dir));
        }
    }
    return out;
}

}  // namespace jfp
