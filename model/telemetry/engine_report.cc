#include "model/telemetry/engine_report.h"

#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cstdio>
#include <ctime>

#include "model/telemetry/metrics_file.h"
#include "model/util/log.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

// One line every stats_interval with what job_submit cost inside slurmctld and what it decided, for the
// interval just past; nothing when no job came.
void EngineReporter::log_stats(bool final, double interval) {
    if (interval <= 0) return;
    auto now = std::chrono::steady_clock::now();
    if (stats_last_.time_since_epoch().count() == 0) stats_last_ = started_;
    double elapsed = std::chrono::duration<double>(now - stats_last_).count();
    if (!final && elapsed < interval) return;
    stats_last_ = now;
    LatencyHistogram::Summary s = src_.submit.take();
    LatencyHistogram::Summary cpu = src_.submit_cpu.take(), walk = src_.submit_walk.take();
    const CounterValues cur = src_.counters.values();
    const CounterValues prev = stats_prev_;
    stats_prev_ = cur;
    auto delta = [&](Counter c) { return cur[static_cast<size_t>(c)] - prev[static_cast<size_t>(c)]; };
    LatencyHistogram::Summary rpc = src_.update.per_rpc.take(), rec = src_.update.per_record.take();
    if (s.count == 0 && rec.count == 0 && rpc.count == 0) return;
    char line[400];
    std::snprintf(line, sizeof line, "stats: %" PRIu64 " submissions in the last %.0f s%s; ", s.count, elapsed,
                  final ? " (plugin unloading)" : "");
    std::string msg = line;
    if (s.count > 0) {
        std::snprintf(line, sizeof line, "job_submit p50 %.1f us, p99 %.1f us, max %.1f us; ", s.p50_us, s.p99_us, s.max_us);
        msg += line;
        if (cpu.count > 0) {
            std::snprintf(line, sizeof line, "on-CPU (%" PRIu64 " sampled) p50 %.1f us, p99 %.1f us; ", cpu.count, cpu.p50_us,
                          cpu.p99_us);
            msg += line;
            if (walk.count > 0) {
                std::snprintf(line, sizeof line, "their tree walks p50 %.1f us, p99 %.1f us; ", walk.p50_us, walk.p99_us);
                msg += line;
            }
        }
    }
    std::snprintf(line, sizeof line,
                  "scored %" PRIu64 ", annotated %" PRIu64 ", warned %" PRIu64 ", rejected %" PRIu64 ", unscored %" PRIu64,
                  delta(Counter::Scored), delta(Counter::Annotated), delta(Counter::Warned), delta(Counter::Rejected),
                  delta(Counter::Unscored));
    msg += line;
    // Updates (scontrol update): one RPC may reach many job records, under slurmctld's job write lock all along.
    // An RPC is counted when it has ended (update_latency.h), maybe in the next interval.
    if (rec.count > 0 || rpc.count > 0) {
        msg += "; updates: " + counted(rec.count, "job record", "job records");
        if (const uint64_t unjudged = delta(Counter::UpdateUnjudged))
            msg += " (" + std::to_string(unjudged) + " of them not judged: past update_budget_ms)";
        msg += ", " + counted(rpc.count, "RPC ended", "RPCs ended");
        if (rpc.count > 0) {
            std::snprintf(line, sizeof line, "; per RPC p50 %.1f us, max %.1f us", rpc.p50_us, rpc.max_us);
            msg += line;
        }
        if (rec.count > 0) {
            std::snprintf(line, sizeof line, "; per record p50 %.1f us, p99 %.1f us", rec.p50_us, rec.p99_us);
            msg += line;
        }
    }
    log_info(msg);
}

// Every metrics_interval, the counters in Prometheus' text format (metrics_file.h): cheap atomics and one small
// file, on the background thread.
void EngineReporter::write_metrics(bool now, const PublishedState &state, const HistoryLock &history, const UserWriteBudget &budget,
                                   const std::string &cluster) {
    const PublishedState *st = &state;
    const Config &cfg = st->config;
    if (cfg.metrics_file.empty()) return;
    auto t = std::chrono::steady_clock::now();
    if (!now && metrics_last_.time_since_epoch().count() != 0 &&
        std::chrono::duration<double>(t - metrics_last_).count() < cfg.metrics_interval_seconds)
        return;
    metrics_last_ = t;
    MetricsSnapshot m;
    m.cluster = cluster;
    m.mode = st->config_present ? mode_name(cfg.mode) : "off";
    const int64_t epoch = static_cast<int64_t>(::time(nullptr));
    const int64_t local_offset = naive_local_now() - epoch;  // naive-local minus epoch, now
    if (st->model) {
        m.model_id = st->model->model_id();
        m.model_kind = st->model->is_rules() ? "rules" : "tree";
        m.threshold = cfg.threshold.value_or(st->model->threshold());
        // The loader does not check "created": a bundle may hold anything there (value() would throw).
        auto created = st->model->metadata().find("created");
        if (created != st->model->metadata().end() && created->is_string())
            if (auto c = parse_sacct_time(created->get<std::string>().substr(0, 19))) m.model_created_epoch = *c;
    }
    {
        auto lock = history.read(*st);
        if (st->history) {
            m.history_jobs = st->history->jobs;
            if (st->history->latest_end > 0) m.history_latest_end_epoch = st->history->latest_end - local_offset;
        }
    }
    m.counts = src_.counters.values();
    if (st->writers.feature_log) m.feature_log_dropped = st->writers.feature_log->dropped();
    const ScriptArchiveCounters a = st->writers.script_archive ? st->writers.script_archive->counters() : ScriptArchiveCounters{};
    m.archive_archived = a.archived;
    m.archive_dropped = a.dropped;
    m.archive_failed = a.failed;
    m.budget_refused_feature_log = budget.refused(UserWriteBudget::File::FeatureLog);
    m.budget_refused_archive = budget.refused(UserWriteBudget::File::ScriptArchive);
    m.users_over_budget = budget.users_over();
    for (int b = 0; b < LatencyHistogram::kBuckets; ++b) {
        const auto i = static_cast<size_t>(b);
        m.latency[i] = src_.submit.cumulative(b);
        m.update_rpc_latency[i] = src_.update.per_rpc.cumulative(b);
        m.update_record_latency[i] = src_.update.per_record.cumulative(b);
    }
    m.written_epoch = epoch;
    m.interval_seconds = cfg.metrics_interval_seconds;
    try {
        write_metrics_file(cfg.metrics_file, prometheus_text(m));
        metrics_error_said_.clear();
    } catch (const std::exception &e) {
        if (metrics_error_said_ != e.what()) log_warning(std::string("metrics file: ") + e.what() +
                                                         " (check metrics_file in jfp.conf and that SlurmUser can write its directory)");
        metrics_error_said_ = e.what();
    }
}

}  // namespace jfp
