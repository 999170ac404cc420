// What the engine says about itself, on the background thread: a stats line in slurmctld's log every
// stats_interval (what job_submit cost and decided since the last), and the metrics file every
// metrics_interval (counters, latency histograms, the model and history in use).
#pragma once

#include <chrono>
#include <string>

#include "model/archive/user_write_budget.h"
#include "model/reload/history_lock.h"
#include "model/reload/published_state.h"
#include "model/request/update_latency.h"
#include "model/telemetry/engine_counters.h"
#include "model/util/latency_histogram.h"

namespace jfp {

class EngineReporter {
public:
    // What the submit and update paths record: read here, the histograms' intervals taken.
    struct Sources {
        const EngineCounters &counters;
        LatencyHistogram &submit;
        LatencyHistogram &submit_cpu;   // a sample of the same calls: the thread's CPU time
        LatencyHistogram &submit_walk;  // and the tree walks' time in them
        UpdateLatency &update;
    };
    explicit EngineReporter(Sources sources) : src_(sources) {}

    // Says the line when interval seconds have passed since the last, or final (the plugin unloading).
    void log_stats(bool final, double interval);
    // Writes the file when metrics_interval has passed since the last, or now.
    void write_metrics(bool now, const PublishedState &state, const HistoryLock &history, const UserWriteBudget &budget,
                       const std::string &cluster);

private:
    Sources src_;
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point stats_last_{}, metrics_last_{};
    CounterValues stats_prev_{};  // the counters at the last stats line
    std::string metrics_error_said_;
};

}  // namespace jfp
