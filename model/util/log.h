// Logging for the core library. The core never includes Slurm headers: the plugin installs a sink that
// forwards to slurm_info/slurm_error; the CLI's default sink writes to stderr.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace jfp {

enum class LogLevel { Debug, Info, Warning, Error };

using LogSink = void (*)(LogLevel, const char *message);

// Not thread-safe to change while other threads log; set once at start.
void set_log_sink(LogSink sink);
// Whether debug messages would be kept: the submit path skips formatting its per-job debug line when not
// (bench/hotpath). The plugin asks slurmctld's current level; the CLI drops debug lines.
using DebugProbe = bool (*)();
void set_debug_probe(DebugProbe probe);
bool debug_enabled();
void log_msg(LogLevel level, const std::string &message);
inline void log_info(const std::string &m) { log_msg(LogLevel::Info, m); }
inline void log_warning(const std::string &m) { log_msg(LogLevel::Warning, m); }
inline void log_error(const std::string &m) { log_msg(LogLevel::Error, m); }
inline void log_debug(const std::string &m) { log_msg(LogLevel::Debug, m); }

// Lets one message through per interval and counts the rest, so a fault hit by every submission
// writes one line a minute instead of flooding slurmctld's log. Lock-free; safe from any thread.
class RateLimitedLog {
public:
    explicit RateLimitedLog(int64_t interval_seconds) : interval_(interval_seconds) {}
    // Logs "message (N similar messages suppressed)" if the interval has passed; returns whether it did.
    bool log(LogLevel level, const std::string &message);
    // Starts an interval now without logging: another line has just said the same thing.
    void hold();
    uint64_t suppressed() const { return suppressed_.load(std::memory_order_relaxed); }

private:
    int64_t interval_;
    std::atomic<int64_t> last_{INT64_MIN / 2};
    std::atomic<uint64_t> suppressed_{0};
    std::atomic<uint64_t> pending_{0};
};

// The error lines of one file's faults (jfp.conf, the model, the history store), for the one thread that
// reloads them. A new kind of fault is said at once; the same kind again with other details (a file
// rewritten again and again, each time broken differently: another JSON offset, another unknown key) is
// said at most once per interval, the latest, with how many were not; a recovery (clear) starts afresh.
// The kind is the line without its details: digits and what stands in quotes or parentheses.
class FaultLog {
public:
    explicit FaultLog(int64_t interval_seconds) : interval_(interval_seconds) {}
    // An error line, different from the last one reported; its kind is read from what (the error without
    // the sentence around it) when given, else from the line.
    void report(const std::string &line, const std::string &what = "");
    void tick();   // says the latest unsaid line once the interval has passed
    void clear();  // the fault is over
    uint64_t unsaid() const { return unsaid_; }

private:
    void say(const std::string &line, uint64_t others);
    int64_t interval_;
    bool said_ = false;
    std::string kind_;
    int64_t last_ = 0;
    std::string pending_;
    uint64_t unsaid_ = 0;
};

}  // namespace jfp
