#include "model/files/open_file_watch.h"

#include <sys/stat.h>

#include <cerrno>

namespace jfp {

void OpenFileWatch::opened(const std::string &path) {
    path_ = path;
    struct stat st {};
    watching_ = ::stat(path.c_str(), &st) == 0;
    dev_ = st.st_dev;
    ino_ = st.st_ino;
    next_check_ = std::chrono::steady_clock::now() + interval_;
}

std::string OpenFileWatch::changed() {
    if (!watching_) return {};
    auto now = std::chrono::steady_clock::now();
    if (now < next_check_) return {};
    next_check_ = now + interval_;
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0)
        return errno == ENOENT ? "was removed or renamed (rotated?)" : "";  // other errors show when writing
    if (st.st_dev != dev_ || st.st_ino != ino_) return "was replaced by another file";
    return {};
}

}  // namespace jfp
