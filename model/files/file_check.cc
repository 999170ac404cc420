#include "model/files/file_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
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

std::string check_stat(const std::string &path, const struct stat &st, const std::vector<uid_t> &trusted, bool is_dir) {
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

std::string check_one(const std::string &path, const std::vector<uid_t> &trusted, bool is_dir) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return path + ": " + std::strerror(errno);
    return check_stat(path, st, trusted, is_dir);
}

}  // namespace

std::string file_mode_text(unsigned mode) {
    char b[8];
    std::snprintf(b, sizeof b, "%04o", mode & 07777u);
    return b;
}

std::string dir_of(const std::string &path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string path_beside(const std::string &path, const std::string &name) {
    const std::string dir = dir_of(path);
    return dir == "/" ? dir + name : dir + "/" + name;
}

std::string trust_problem(const std::string &path, const std::vector<uid_t> &trusted) {
    std::string p = check_one(path, trusted, false);
    if (!p.empty()) return p;
    return check_one(dir_of(path), trusted, true);
}

TrustedFile::TrustedFile(const std::string &path, const std::vector<uid_t> &trusted) {
    struct stat link {};
    if (::lstat(path.c_str(), &link) != 0) {
        problem_ = path + ": " + std::strerror(errno);
        return;
    }
    if (S_ISLNK(link.st_mode) && std::find(trusted.begin(), trusted.end(), link.st_uid) == trusted.end()) {
        problem_ = path + " is a symbolic link owned by uid " + std::to_string(link.st_uid) +
                   ", not by root or SlurmUser; replace it with the file itself or a link of theirs";
        return;
    }
    // O_NONBLOCK: a FIFO put in the file's place must not stall the reader; it fails the regular-file check.
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        problem_ = path + ": " + std::strerror(errno);
        return;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        problem_ = path + ": " + std::strerror(errno);
    } else if (!S_ISREG(st.st_mode)) {
        problem_ = path + " is not a regular file";
    } else {
        problem_ = check_stat(path, st, trusted, false);
        if (problem_.empty()) problem_ = check_one(dir_of(path), trusted, true);
    }
    if (!problem_.empty()) {
        ::close(fd);
        return;
    }
    fd_ = fd;
    size_ = static_cast<int64_t>(st.st_size);
}

TrustedFile::~TrustedFile() {
    if (fd_ >= 0) ::close(fd_);
}

TrustedRead read_trusted_file(const std::string &path, const std::vector<uid_t> &trusted, size_t max_bytes) {
    TrustedRead r;
    TrustedFile f(path, trusted);
    r.problem = f.problem();
    if (!r.problem.empty()) return r;
    // Sized by what fstat saw, grown if the file grows; never past max_bytes + 1.
    std::string buf(std::min(max_bytes, static_cast<size_t>(std::max<int64_t>(f.size(), 0))) + 1, '\0');
    size_t got = 0;
    while (true) {
        if (got == buf.size()) {
            if (buf.size() > max_bytes) break;
            buf.resize(std::min(max_bytes + 1, buf.size() * 2));
        }
        ssize_t n = ::read(f.fd(), buf.data() + got, buf.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            r.problem = path + ": " + std::strerror(errno);
            return r;
        }
        if (n == 0) break;
        got += static_cast<size_t>(n);
    }
    if (got > max_bytes) {
        r.too_big = true;
    } else {
        buf.resize(got);
        r.out = std::move(buf);
    }
    return r;
}

}  // namespace jfp
