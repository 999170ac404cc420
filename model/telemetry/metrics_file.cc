#include "model/telemetry/metrics_file.h"

#include "model/files/atomic_file.h"


#include <cstdarg>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace jfp {

namespace {

// Label values escaped as the text format asks: backslash, quote, newline; cut at 200 bytes, so that no line
// outgrows line()'s buffer (a cut line would make the scraper reject the whole file).
std::string label_impl(const std::string &value) {
    std::string out;
    const std::string v = value.substr(0, 200);
    for (char c : v) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

void line(std::string &out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void line(std::string &out, const char *fmt, ...) {
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    out += buf;
    out += '\n';
}

// A metric family's HELP and TYPE lines, as the text exposition format 0.0.4 has them: named as its samples
// are (counters with _total), and only the types that format knows (no OpenMetrics "info" or "# EOF",
// which node_exporter's textfile collector refuses with the whole file).
void family(std::string &out, const char *name, const char *type, const char *help) {
    line(out, "# HELP %s %s", name, help);
    line(out, "# TYPE %s %s", name, type);
}

std::string label(const std::string &value) { return label_impl(value); }

// A latency histogram in seconds, at a few bucket edges a person reads (the plugin's own buckets are finer).
void histogram(std::string &o, const std::string &c, const char *name, const char *help,
               const std::array<uint64_t, LatencyHistogram::kBuckets> &counts) {
    family(o, name, "histogram", help);
    static const double edges_us[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 100000, 1000000};
    uint64_t total = 0;
    double sum_s = 0;
    size_t b = 0;
    auto take = [&](size_t i) {
        total += counts[i];
        sum_s += static_cast<double>(counts[i]) * LatencyHistogram::upper_bound_ns(static_cast<int>(i)) * 1e-9;
    };
    for (double e : edges_us) {
        for (; b < counts.size() && LatencyHistogram::upper_bound_ns(static_cast<int>(b)) <= e * 1000; ++b) take(b);
        line(o, "%s_bucket{%s,le=\"%g\"} %" PRIu64, name, c.c_str(), e * 1e-6, total);
    }
    for (; b < counts.size(); ++b) take(b);
    line(o, "%s_bucket{%s,le=\"+Inf\"} %" PRIu64, name, c.c_str(), total);
    line(o, "%s_count{%s} %" PRIu64, name, c.c_str(), total);
    line(o, "%s_sum{%s} %.9f", name, c.c_str(), sum_s);  // by bucket edges: an upper bound
}

// A counter family: its samples are the counters kCounterNames puts in it, in the table's order.
void counter_family(std::string &o, const std::string &c, const MetricsSnapshot &m, const char *name, const char *help) {
    family(o, name, "counter", help);
    for (const CounterName &n : kCounterNames) {
        if (std::strcmp(n.family, name) != 0) continue;
        const uint64_t v = m.counts[static_cast<size_t>(n.counter)];
        if (n.label) line(o, "%s{%s,%s=\"%s\"} %" PRIu64, name, c.c_str(), n.label, n.value, v);
        else line(o, "%s{%s} %" PRIu64, name, c.c_str(), v);
    }
}

}  // namespace

std::string prometheus_label(const std::string &value) { return label_impl(value); }

std::string prometheus_text(const MetricsSnapshot &m) {
    std::string o;
    const std::string c = "cluster=\"" + label(m.cluster) + "\"";
    counter_family(o, c, m, "jfp_jobs_total", "Submissions job_submit/jfp handled, by what it did.");
    counter_family(o, c, m, "jfp_faults_total", "Internal faults on which the plugin let the job through (slurmctld's log says why).");
    counter_family(o, c, m, "jfp_script_findings_total", "Submissions whose script showed a certain fault, by kind.");
    family(o, "jfp_dropped_total", "counter", "Records not kept because a queue was full or a write failed.");
    line(o, "jfp_dropped_total{%s,what=\"feature_log\"} %" PRIu64, c.c_str(), m.feature_log_dropped);
    line(o, "jfp_dropped_total{%s,what=\"script_archive\"} %" PRIu64, c.c_str(), m.archive_dropped + m.archive_failed);
    family(o, "jfp_user_budget_refused_total", "counter",
           "Requests not logged or archived because their user had added user_mb_per_day to jfp's files that day.");
    line(o, "jfp_user_budget_refused_total{%s,what=\"feature_log\"} %" PRIu64, c.c_str(), m.budget_refused_feature_log);
    line(o, "jfp_user_budget_refused_total{%s,what=\"script_archive\"} %" PRIu64, c.c_str(), m.budget_refused_archive);
    family(o, "jfp_users_over_budget", "gauge", "Users who have added user_mb_per_day to jfp's files today.");
    line(o, "jfp_users_over_budget{%s} %" PRIu64, c.c_str(), m.users_over_budget);
    family(o, "jfp_scripts_archived_total", "counter", "Batch scripts the archive kept.");
    line(o, "jfp_scripts_archived_total{%s} %" PRIu64, c.c_str(), m.archive_archived);
    counter_family(o, c, m, "jfp_loads_total", "Models and histories loaded since slurmctld started.");

    histogram(o, c, "jfp_submit_seconds", "Time job_submit/jfp spent on a submission inside slurmctld.", m.latency);
    // An update RPC holds slurmctld's job write lock through all the records it reaches.
    histogram(o, c, "jfp_update_seconds",
              "Time job_modify/jfp spent on one update RPC inside slurmctld, all the job records it reached together.",
              m.update_rpc_latency);
    histogram(o, c, "jfp_update_record_seconds", "Time job_modify/jfp spent on one job record an update reached.",
              m.update_record_latency);

    family(o, "jfp_model_info", "gauge", "The model the plugin scores with (always 1; the labels say which).");
    if (!m.model_id.empty())
        line(o, "jfp_model_info{%s,model=\"%s\",kind=\"%s\",mode=\"%s\"} 1", c.c_str(), label(m.model_id).c_str(),
             label(m.model_kind).c_str(), label(m.mode).c_str());
    family(o, "jfp_model_threshold", "gauge", "The failure probability at or above which the policy acts.");
    if (!m.model_id.empty()) line(o, "jfp_model_threshold{%s} %.6f", c.c_str(), m.threshold);
    family(o, "jfp_model_created_seconds", "gauge", "When the model was trained (Unix time).");
    if (m.model_created_epoch > 0) line(o, "jfp_model_created_seconds{%s} %" PRId64, c.c_str(), m.model_created_epoch);
    family(o, "jfp_history_jobs", "gauge", "Ended jobs in the history the plugin scores against.");
    line(o, "jfp_history_jobs{%s} %" PRIu64, c.c_str(), m.history_jobs);
    family(o, "jfp_history_latest_end_seconds", "gauge", "When the newest job in that history ended (Unix time; lag: now minus this).");
    if (m.history_latest_end_epoch > 0) line(o, "jfp_history_latest_end_seconds{%s} %" PRId64, c.c_str(), m.history_latest_end_epoch);
    family(o, "jfp_metrics_written_seconds", "gauge", "When the plugin wrote this file (Unix time).");
    line(o, "jfp_metrics_written_seconds{%s} %" PRId64, c.c_str(), m.written_epoch);
    family(o, "jfp_metrics_interval_seconds", "gauge", "How often the plugin writes this file (metrics_interval).");
    line(o, "jfp_metrics_interval_seconds{%s} %g", c.c_str(), m.interval_seconds);
    return o;
}

void write_metrics_file(const std::string &path, const std::string &text) {
    // Whole or nothing for the scraper, but no fsync: the background thread must not wait on a slow disk
    // (or a hung NFS mount) every interval, and a lost write is replaced by the next one.
    write_file_atomically(path, text, 0644, "tmp", false);
}

}  // namespace jfp
