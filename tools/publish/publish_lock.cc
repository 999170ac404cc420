#include "tools/publish/publish_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace jfp {

PublishLock::PublishLock(const std::string &target, const std::function<void()> &on_wait) {
    std::string path = target + ".lock";
    // Read-only: flock needs no write access, so a lock file root left (0644) still serves SlurmUser.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
    if (errno == EWOULDBLOCK) {
        if (on_wait) on_wait();
        int rc;
        while ((rc = ::flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {
        }
        if (rc == 0) return;
    }
    const std::string why = std::strerror(errno);
    ::close(fd_);
    throw std::runtime_error("cannot lock " + path + " (" + why + "): nothing was installed; run jfp publish again");
}

PublishLock::~PublishLock() { ::close(fd_); }

}  // namespace jfp
