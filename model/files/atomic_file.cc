#include "model/files/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "model/files/file_check.h"

namespace jfp {

std::string write_beside(const std::string &path, const std::string &text, mode_t mode, const char *tag, bool sync) {
    std::string tmp = path + "." + tag + "." + std::to_string(::getpid());
    ::unlink(tmp.c_str());  // a leftover of a process that died with this pid
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) throw std::runtime_error("cannot create " + tmp + ": " + std::strerror(errno));
    auto fail = [&](const char *what) {
        int e = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        throw std::runtime_error(std::string("cannot ") + what + " " + tmp + ": " + std::strerror(e));
    };
    size_t off = 0;
    while (off < text.size()) {
        ssize_t w = ::write(fd, text.data() + off, text.size() - off);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) fail("write");
        off += static_cast<size_t>(w);
    }
    if (::fchmod(fd, mode) != 0 || (sync && ::fsync(fd) != 0)) fail("finish");
    ::close(fd);
    return tmp;
}

void rename_into_place(const std::string &tmp, const std::string &path) {
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + std::strerror(e));
    }
}

void write_file_atomically(const std::string &path, const std::string &text, mode_t mode, const char *tag, bool sync) {
    rename_into_place(write_beside(path, text, mode, tag, sync), path);
    if (sync) sync_directory_of(path);
}

void sync_directory_of(const std::string &path) {
    const std::string dir = dir_of(path);
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

}  // namespace jfp
