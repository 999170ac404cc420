// The plugin's state for a monitoring system: counters, job_submit's latency histogram, the model and the
// history it scores with, in Prometheus' text exposition format 0.0.4, written whole to a file (tmp + rename)
// by the background thread every metrics_interval. node_exporter's textfile collector serves such *.prom
// files (it refuses OpenMetrics-only lines); `jfp status` prints one for a person. The submit path never waits for it.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "model/telemetry/engine_counters.h"
#include "model/util/latency_histogram.h"

namespace jfp {

struct MetricsSnapshot {
    std::string cluster, mode, model_id, model_kind;
    int64_t model_created_epoch = 0;  // 0: no model
    double threshold = 0;
    uint64_t history_jobs = 0;
    int64_t history_latest_end_epoch = 0;  // the newest job end the plugin's history holds; 0 unknown
    CounterValues counts{};  // written as kCounterNames names them
    uint64_t archive_archived = 0, archive_dropped = 0, archive_failed = 0;
    uint64_t feature_log_dropped = 0;
    // UserWriteBudget: requests of users whose day was spent, left out of each file; such users today.
    uint64_t budget_refused_feature_log = 0, budget_refused_archive = 0, users_over_budget = 0;
    std::array<uint64_t, LatencyHistogram::kBuckets> latency{};  // cumulative counts per bucket
    // Updates: the time of each update RPC in all (its records summed), and of each record it reached.
    std::array<uint64_t, LatencyHistogram::kBuckets> update_rpc_latency{}, update_record_latency{};
    int64_t written_epoch = 0;
    double interval_seconds = 60;  // metrics_interval: how stale the file may be
};

std::string prometheus_text(const MetricsSnapshot &m);

// A label value escaped for that format (backslash, quote, newline) and cut at 200 bytes.
std::string prometheus_label(const std::string &value);

// Writes text to path atomically (a temporary file beside it, renamed over it), mode 0644. Throws
// std::runtime_error saying what failed.
void write_metrics_file(const std::string &path, const std::string &text);

}  // namespace jfp
