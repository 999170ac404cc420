#include "model/util/log.h"

#include <cstdio>
#include <ctime>

#include "model/util/text.h"

namespace jfp {

namespace {

void stderr_sink(LogLevel level, const char *message) {
    const char *tag = level == LogLevel::Error ? "error: " : level == LogLevel::Warning ? "warning: " : "";
    if (level == LogLevel::Debug) return;
    std::fprintf(stderr, "jfp: %s%s\n", tag, message);
}

LogSink g_sink = stderr_sink;
bool no_debug() { return false; }
DebugProbe g_debug_probe = no_debug;

int64_t monotonic_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec;
}

}  // namespace

void set_log_sink(LogSink sink) { g_sink = sink ? sink : stderr_sink; }
void set_debug_probe(DebugProbe probe) { g_debug_probe = probe ? probe : no_debug; }
bool debug_enabled() { return g_debug_probe(); }

// Every line, whatever it quotes, through the one escaper: a log line is one line, and no user's bytes
// reach an admin's terminal (tail -f, journalctl) as controls. Escaped text passes through unchanged.
void log_msg(LogLevel level, const std::string &message) { g_sink(level, printable(message).c_str()); }

void RateLimitedLog::hold() { last_.store(monotonic_seconds(), std::memory_order_relaxed); }

bool RateLimitedLog::log(LogLevel level, const std::string &message) {
    int64_t now = monotonic_seconds();
    int64_t last = last_.load(std::memory_order_relaxed);
    if (now - last < interval_ || !last_.compare_exchange_strong(last, now)) {
        suppressed_.fetch_add(1, std::memory_order_relaxed);
        pending_.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    uint64_t n = pending_.exchange(0, std::memory_order_relaxed);
    if (n == 0)
        log_msg(level, message);
    else
        log_msg(level, message + " (" + std::to_string(n) + " similar messages suppressed)");
    return true;
}

void FaultLog::say(const std::string &line, uint64_t others) {
    log_msg(LogLevel::Error, others ? line + " (and " + std::to_string(others) + " other error" + (others > 1 ? "s" : "") +
                                          " since the previous line, " + std::to_string(monotonic_seconds() - last_) + " s ago)"
                                    : line);
    said_ = true;
    last_ = monotonic_seconds();
    pending_.clear();
    unsaid_ = 0;
}

namespace {
std::string fault_kind(const std::string &line) {
    std::string k;
    int depth = 0;
    char quote = 0;
    for (char c : line) {
        if (quote) {
            if (c == quote) quote = 0;
            continue;
        }
        if (c == '\'' || c == '"') quote = c;
        else if (c == '(') ++depth;
        else if (c == ')' && depth > 0) --depth;
        else if (depth == 0 && !(c >= '0' && c <= '9')) k += c;
    }
    return k;
}
}  // namespace

void FaultLog::report(const std::string &line, const std::string &what) {
    std::string kind = fault_kind(what.empty() ? line : what);
    bool new_kind = kind != kind_;
    kind_ = std::move(kind);
    if (!said_ || new_kind || monotonic_seconds() - last_ >= interval_) return say(line, unsaid_);
    pending_ = line;
    ++unsaid_;
}

void FaultLog::tick() {
    if (!pending_.empty() && monotonic_seconds() - last_ >= interval_) say(pending_, unsaid_ - 1);
}

void FaultLog::clear() {
    said_ = false;
    kind_.clear();
    pending_.clear();
    unsaid_ = 0;
}

}  // namespace jfp
