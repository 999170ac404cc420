// Notices when the file a long-lived writer holds open is removed, renamed or replaced under it (an
// admin's rm, logrotate): the writer then closes its handle, which frees the space a deleted file keeps,
// and opens a new file at the path. Without it every later row goes into a file no one can reach.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

namespace jfp {

class OpenFileWatch {
public:
    explicit OpenFileWatch(std::chrono::milliseconds interval = std::chrono::seconds(2)) : interval_(interval) {}

    // Records what path names now (call right after opening it).
    void opened(const std::string &path);
    void closed() { watching_ = false; }

    // At most once per interval (else empty): what happened to the file since opened(), e.g. "was removed",
    // "was replaced by another file"; empty when the path still names it.
    std::string changed();

private:
    std::chrono::milliseconds interval_;
    std::chrono::steady_clock::time_point next_check_{};
    std::string path_;
    bool watching_ = false;
    dev_t dev_ = 0;
    ino_t ino_ = 0;
};

}  // namespace jfp
