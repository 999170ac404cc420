#include "tools/terminal/progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>

namespace jfp {

namespace {
double now_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
}  // namespace

Progress::Progress(bool enabled) : on_(enabled && isatty(STDERR_FILENO)) {}

void Progress::update(long done, long total, const std::string &what) {
    if (!on_ || total <= 0) return;
    double t = now_seconds();
    long pct = done * 100 / total;
    if (done != total && pct == last_pct_ && t - last_draw_ < 0.2) return;
    last_pct_ = pct;
    last_draw_ = t;
    const int width = 30;
    int fill = static_cast<int>(done * width / total);
    std::string bar(static_cast<size_t>(fill), '=');
    bar.resize(width, ' ');
    std::fprintf(stderr, "\r[%s] %ld/%ld %s\033[K", bar.c_str(), done, total, what.c_str());
    std::fflush(stderr);
    drawn_ = true;
}

void Progress::finish() {
    if (on_ && drawn_) {
        std::fputc('\n', stderr);
        drawn_ = false;
        last_pct_ = -1;
    }
}

FileProgress::FileProgress(bool enabled, std::string what) : bar_(enabled), what_(std::move(what)) {
    if (!bar_.enabled()) return;
    thread_ = std::thread([this] {
        while (!stop_.load()) {
            int fd = fd_.load();
            long size = size_.load();
            if (fd >= 0 && size > 0) {
                std::ifstream info("/proc/self/fdinfo/" + std::to_string(fd));
                std::string key;
                long pos = -1;
                while (info >> key) {
                    if (key == "pos:") {
                        info >> pos;
                        break;
                    }
                }
                std::lock_guard<std::mutex> lock(drawing_);
                if (pos >= 0 && fd_.load() == fd) bar_.update(pos > size ? size : pos, size, what_);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
    });
}

void FileProgress::watch(int fd, long size) {
    size_.store(size);
    fd_.store(fd);
}

void FileProgress::pause() {
    std::lock_guard<std::mutex> lock(drawing_);
    fd_.store(-1);
    bar_.finish();
}

void FileProgress::stop() {
    if (thread_.joinable()) {
        stop_.store(true);
        thread_.join();
        bar_.finish();
    }
}

FileProgress::~FileProgress() { stop(); }

}  // namespace jfp
