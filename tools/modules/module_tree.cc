#include "tools/modules/module_tree.h"

#include <dirent.h>
#include <unistd.h>

#include <cstring>
#include <sstream>
#include <stdexcept>

#include "model/files/file_check.h"

namespace jfp {

namespace {

const TreeVisit *g_visit = nullptr;
int visit_trampoline(const char *path, const struct stat *st, int type, FTW *f) { return (*g_visit)(path, st, type, f); }

bool is_empty_dir(const std::string &p) {
    DIR *d = ::opendir(p.c_str());
    if (!d) return false;  // unreadable: the spider will say so
    bool empty = true;
    while (const dirent *e = ::readdir(d))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
            empty = false;
            break;
        }
    ::closedir(d);
    return empty;
}

bool is_dir(const std::string &p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

void walk_tree(const std::string &dir, const TreeVisit &visit) {
    g_visit = &visit;
    ::nftw(dir.c_str(), visit_trampoline, 32, FTW_PHYS);
    g_visit = nullptr;
}

std::string untrusted_entry(const std::string &dir) {
    std::string found;
    size_t seen = 0;
    walk_tree(dir, [&](const char *path, const struct stat *st, int type, const FTW *) {
        if (++seen > 500000) {
            found = std::string(path) + ": more than 500,000 entries, the rest not checked";
            return 1;
        }
        if (type == FTW_SL || ((st->st_uid == 0 || st->st_uid == ::geteuid()) && !(st->st_mode & (S_IWGRP | S_IWOTH))))
            return 0;
        found = std::string(path) + " (owner uid " + std::to_string(st->st_uid) + ", mode " + file_mode_text(st->st_mode) + ")";
        return 1;
    });
    return found;
}

std::vector<std::string> modulepath_dirs(const std::string &modulepath) {
    std::vector<std::string> dirs;
    std::stringstream in(modulepath);
    for (std::string d; std::getline(in, d, ':');)
        if (!d.empty()) dirs.push_back(d);
    return dirs;
}

void check_modulepath_mounted(const std::string &modulepath) {
    for (const std::string &d : modulepath_dirs(modulepath)) {
        if (!is_dir(d))
            throw std::runtime_error("module directory " + d + " (in --modulepath) is not a directory here (a file "
                                     "system not mounted?): its modules would be missing from the index, and jobs "
                                     "loading them told they do not exist; nothing written");
        // A mount point whose file system is not mounted is usually an empty directory.
        if (is_empty_dir(d))
            throw std::runtime_error("module directory " + d + " (in --modulepath) is empty (a file system not "
                                     "mounted?): its modules would be missing from the index; nothing written (take "
                                     "it out of --modulepath if it is meant to be empty)");
    }
}

}  // namespace jfp
