#include "model/util/file_check.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace jfp {

FileSig file_sig(const std::string &path) {
    struct stat st {};
    FileSig s;
    s.mtime_ns = 0;
    if (::stat(path.c_str(), &st) != 0) return s;
    s.exists = true;
    s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    s.ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    s.size = static_cast<int64_t>(st.st_size);
    s.inode = static_cast<uint64_t>(st.st_ino);
    return s;
}

namespace {

std::string check_one(const std::string &path, const std::vector<uid_t> &trusted, bool is_dir) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return path + ": " + std::strerror(errno);
    bool owner_ok = std::find(trusted.begin(), trusted.end(), st.st_uid) != trusted.end();
    if (!owner_ok)
        return path + " is owned by uid " + std::to_string(st.st_uid) +
               ", not by root or SlurmUser; chown it to one of them";
    bool writable_by_others = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
    if (writable_by_others && !(is_dir && (st.st_mode & S_ISVTX)))
        return path + " is writable by group or others (mode " + std::to_string((st.st_mode >> 6) & 7) +
               std::to_string((st.st_mode >> 3) & 7) + std::to_string(st.st_mode & 7) + "); chmod go-w it";
    return {};
}

}  // namespace

std::string trust_problem(const std::string &path, const std::vector<uid_t> &trusted) {
    std::string p = check_one(path, trusted, false);
    if (!p.empty()) return p;
    auto slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    return check_one(dir, trusted, true);
}

}  // namespace jfp
