// A one-line progress bar on stderr, drawn only when stderr is a terminal.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>

namespace jfp {

class Progress {
public:
    // enabled: the caller's wish; the bar still stays silent when stderr is not a TTY.
    explicit Progress(bool enabled);
    void update(long done, long total, const std::string &what);
    void finish();
    bool enabled() const { return on_; }

private:
    bool on_;
    bool drawn_ = false;
    long last_pct_ = -1;
    double last_draw_ = 0;
};

// Progress through files being read elsewhere (a reader's own loop): a thread samples each file's offset
// from /proc/self/fdinfo, which the kernel keeps whatever the reading code does, so the reader is not
// touched. A .gz file fed to gzip on stdin shares that offset, so it shows compressed bytes. Nothing
// runs when stderr is not a terminal.
class FileProgress {
public:
    FileProgress(bool enabled, std::string what);
    ~FileProgress();
    FileProgress(const FileProgress &) = delete;
    FileProgress &operator=(const FileProgress &) = delete;
    // Watch this descriptor (a regular file of `size` bytes) until the next watch(), pause() or stop().
    void watch(int fd, long size);
    // Ends the bar's line so the caller can print; a later watch() draws again.
    void pause();
    void stop();

private:
    Progress bar_;
    std::string what_;
    std::atomic<int> fd_{-1};
    std::atomic<long> size_{0};
    std::atomic<bool> stop_{false};
    std::mutex drawing_;  // the sampler draws, pause() ends the line: one at a time
    std::thread thread_;
};

}  // namespace jfp
