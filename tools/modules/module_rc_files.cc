#include "tools/modules/module_rc_files.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>

#include <nlohmann/json.hpp>

#include "model/script/module_rc.h"
#include "tools/modules/module_tree.h"

namespace jfp {

void read_rc_files(std::string root, RcNames &out) {
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    walk_tree(root, [&](const char *path, const struct stat *st, int type, const FTW *f) {
        if (type != FTW_F || !S_ISREG(st->st_mode) || st->st_size > (1 << 20) || out.names.size() >= 10000) return 0;
        std::string_view base(path + f->base);
        if (base != ".modulerc.lua" && base != ".modulerc") return 0;
        const std::string dir(path, f->base > 0 ? static_cast<size_t>(f->base - 1) : 0);
        const std::string module_dir = dir.size() > root.size() ? dir.substr(root.size() + 1) : std::string();
        std::ifstream in(path, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        ++out.files;
        for (auto &n : module_rc_names(text, module_dir)) out.names.emplace_back(std::move(n), path);
        return 0;
    });
}

void read_global_rc_files(RcNames &out) {
    std::vector<std::string> global;
    if (const char *g = std::getenv("LMOD_MODULERCFILE"); g && *g) {
        std::stringstream gs(g);
        for (std::string f; std::getline(gs, f, ':');) global.push_back(f);
    }
    for (const char *f : {"/etc/lmod/modulerc.lua", "/etc/lmod/modulerc", "/usr/share/lmod/etc/rc.lua", "/usr/share/lmod/etc/rc"})
        global.emplace_back(f);
    for (const auto &f : global) {
        std::ifstream in(f, std::ios::binary);
        if (!in) continue;
        std::string t((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (t.size() > (1 << 20)) continue;
        ++out.files;
        for (auto &n : module_rc_names(t, "")) out.names.emplace_back(std::move(n), f);
    }
}

std::string add_rc_names(const std::string &spider_json, const ModuleIndex &ix, const RcNames &rc) {
    nlohmann::json j = nlohmann::json::parse(spider_json);
    for (const auto &[full, file] : rc.names) {
        // An alias is a module of its own name; a symbolic version a version of its module.
        std::string name = full, entry = file + "#" + full;
        if (!ix.knows_name(full)) {
            size_t slash = full.rfind('/');
            if (slash != std::string::npos && ix.knows_name(full.substr(0, slash))) name = full.substr(0, slash);
        }
        j[name][entry] = {{"fullName", full}, {"hidden", false}, {"jfpFrom", file}};
    }
    return j.dump();
}

}  // namespace jfp
