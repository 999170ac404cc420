#include "tools/check/running_plugin.h"

#include <dirent.h>
#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "model/util/text.h"

namespace jfp {

std::optional<MappedFile> find_mapping(std::string_view maps, std::string_view file_name) {
    // "addr perms offset dev inode path", the path from the 6th column to the end of the line.
    for (auto line : split(maps, '\n')) {
        std::string_view rest = line;
        std::string_view cols[5];
        bool ok = true;
        for (auto &c : cols) {
            rest = trim(rest);
            auto sp = rest.find(' ');
            if (sp == std::string_view::npos) {
                ok = false;
                break;
            }
            c = rest.substr(0, sp);
            rest = rest.substr(sp);
        }
        if (!ok) continue;
        std::string_view path = trim(rest);
        constexpr std::string_view kDeleted = " (deleted)";
        bool deleted = path.size() > kDeleted.size() && path.substr(path.size() - kDeleted.size()) == kDeleted;
        if (deleted) path.remove_suffix(kDeleted.size());
        auto slash = path.rfind('/');
        std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
        if (name != file_name) continue;
        auto inode = parse_int(cols[4]);
        if (!inode) continue;
        return MappedFile{std::string(path), static_cast<uint64_t>(*inode), deleted};
    }
    return std::nullopt;
}

bool same_file_path(const std::string &a, const std::string &b) {
    auto canonical = [](const std::string &p) {
        auto slash = p.rfind('/');
        std::string dir = slash == std::string::npos ? "." : p.substr(0, slash), name = p.substr(slash + 1);
        char buf[PATH_MAX];
        if (::realpath(dir.c_str(), buf)) dir = buf;
        return dir + "/" + name;
    };
    return canonical(a) == canonical(b);
}

std::vector<RunningPlugin> running_plugins(const std::string &proc_root, const std::string &comm) {
    std::vector<RunningPlugin> out;
    DIR *d = ::opendir(proc_root.c_str());
    if (!d) return out;
    while (dirent *e = ::readdir(d)) {
        auto pid = parse_int(e->d_name);
        if (!pid || *pid <= 0) continue;
        const std::string dir = proc_root + "/" + e->d_name;
        std::ifstream c(dir + "/comm");
        std::string name;
        if (!c || !std::getline(c, name) || name != comm) continue;
        RunningPlugin p;
        p.pid = static_cast<int>(*pid);
        std::ifstream m(dir + "/maps");
        if (!m) {
            p.unreadable = std::string(std::strerror(errno));
            out.push_back(p);
            continue;
        }
        std::ostringstream ss;
        ss << m.rdbuf();
        auto mapped = find_mapping(ss.str(), "job_submit_jfp.so");
        if (!mapped) continue;  // this slurmctld has not loaded jfp
        p.mapped = *mapped;
        struct stat st {};
        p.stale = mapped->deleted || ::stat(mapped->path.c_str(), &st) != 0 || static_cast<uint64_t>(st.st_ino) != mapped->inode;
        out.push_back(p);
    }
    ::closedir(d);
    return out;
}

}  // namespace jfp
