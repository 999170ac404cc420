#include "tools/monitor/plugin_status.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "model/util/text.h"

namespace jfp {

bool parse_metric_sample(const std::string &line, MetricSample &s) {
    if (line.empty() || line[0] == '#') return false;
    size_t brace = line.find('{'), space;
    s.labels.clear();
    if (brace != std::string::npos) {
        s.name = line.substr(0, brace);
        size_t i = brace + 1;
        while (i < line.size() && line[i] != '}') {
            size_t eq = line.find('=', i);
            if (eq == std::string::npos || eq + 1 >= line.size() || line[eq + 1] != '"') return false;
            std::string key = line.substr(i, eq - i), val;
            size_t j = eq + 2;
            for (; j < line.size() && line[j] != '"'; ++j) {
                if (line[j] == '\\' && j + 1 < line.size()) val += line[++j] == 'n' ? '\n' : line[j];
                else val += line[j];
            }
            s.labels[key] = val;
            i = j + 1;
            if (i < line.size() && line[i] == ',') ++i;
        }
        space = line.find(' ', i);
    } else {
        space = line.find(' ');
        s.name = line.substr(0, space);
    }
    if (space == std::string::npos) return false;
    s.value = std::strtod(line.c_str() + space + 1, nullptr);
    return true;
}

std::string ago(double seconds) {
    char b[64];
    if (seconds < 120) std::snprintf(b, sizeof b, "%.0f s ago", seconds);
    else if (seconds < 7200) std::snprintf(b, sizeof b, "%.0f min ago", seconds / 60);
    else if (seconds < 172800) std::snprintf(b, sizeof b, "%.1f hours ago", seconds / 3600);
    else std::snprintf(b, sizeof b, "%.1f days ago", seconds / 86400);
    return b;
}

PluginStatus read_plugin_status(std::istream &in) {
    PluginStatus st;
    MetricSample s;
    for (std::string line; std::getline(in, line);) {
        if (!parse_metric_sample(line, s)) continue;
        if (s.name == "jfp_jobs_total") st.jobs[s.labels["decision"]] = s.value;
        else if (s.name == "jfp_submit_seconds_bucket" && s.labels["le"] != "+Inf") st.submit_buckets.push_back({std::strtod(s.labels["le"].c_str(), nullptr), s.value});
        else if (s.name == "jfp_submit_seconds_count") st.submit_count = s.value;
        else if (s.name == "jfp_update_seconds_bucket" && s.labels["le"] != "+Inf") st.update_buckets.push_back({std::strtod(s.labels["le"].c_str(), nullptr), s.value});
        else if (s.name == "jfp_update_seconds_count") st.update_count = s.value;
        else if (s.name == "jfp_update_record_seconds_count") st.update_records = s.value;
        else if (s.name == "jfp_model_info") st.model = s.labels["model"], st.kind = s.labels["kind"], st.mode = s.labels["mode"];
        else if (s.name == "jfp_model_threshold") st.threshold = s.value;
        else if (s.name == "jfp_model_created_seconds") st.created = s.value;
        else if (s.name == "jfp_history_jobs") st.history_jobs = s.value;
        else if (s.name == "jfp_history_latest_end_seconds") st.latest_end = s.value;
        else if (s.name == "jfp_metrics_written_seconds") st.written = s.value;
        else if (s.name == "jfp_faults_total") st.faults = s.value;
        else if (s.name == "jfp_metrics_interval_seconds") st.interval = s.value;
        else if (s.name == "jfp_dropped_total") (s.labels["what"] == "feature_log" ? st.dropped_log : st.dropped_archive) = s.value;
        else if (s.name == "jfp_user_budget_refused_total") (s.labels["what"] == "feature_log" ? st.budget_log : st.budget_archive) = s.value;
        else if (s.name == "jfp_users_over_budget") st.users_over = s.value;
    }
    return st;
}

namespace {

// The bucket bound (microseconds) under which the share q of the count falls.
std::string quantile(const std::vector<std::pair<double, double>> &buckets, double count, double q) {
    for (const auto &[le, n] : buckets)
        if (count > 0 && n >= q * count) {
            char b[32];
            std::snprintf(b, sizeof b, "<= %g us", le * 1e6);
            return b;
        }
    return "> " + std::to_string(static_cast<int>(buckets.empty() ? 0 : buckets.back().first * 1000)) + " ms";
}

}  // namespace

std::string plugin_status_text(const PluginStatus &s, const std::string &path, double now, bool &stale) {
    std::string o;
    std::map<std::string, double> jobs = s.jobs;  // a decision the file does not name counts 0
    appendf(o, "jfp status: %s, written %s\n", path.c_str(), ago(now - s.written).c_str());
    if (s.model.empty()) o += "  model     none loaded: every job passes unscored\n";
    else
        appendf(o, "  model     %s (%s), threshold %.4f, trained %s; mode %s\n", s.model.c_str(), s.kind.c_str(), s.threshold,
                s.created > 0 ? ago(now - s.created).c_str() : "(unknown)", s.mode.c_str());
    appendf(o, "  history   %.0f jobs; the newest ended %s\n", s.history_jobs,
            s.latest_end > 0 ? ago(now - s.latest_end).c_str() : "(none)");
    appendf(o, "  jobs      scored %.0f, annotated %.0f, warned %.0f, rejected %.0f, overridden %.0f, exempt %.0f, unscored %.0f, "
               "updates %.0f (not judged: %.0f by others than the owner, %.0f past update_budget_ms)\n",
            jobs["scored"], jobs["annotated"], jobs["warned"], jobs["rejected"], jobs["overridden"], jobs["exempt"],
            jobs["unscored"], jobs["updated"], jobs["update_not_owner"], jobs["update_unjudged"]);
    if (s.submit_count > 0)
        appendf(o, "  latency   %.0f submissions: p50 %s, p99 %s\n", s.submit_count,
                quantile(s.submit_buckets, s.submit_count, 0.5).c_str(), quantile(s.submit_buckets, s.submit_count, 0.99).c_str());
    // An update RPC's time is all the job records it reached together (slurmctld's job write lock is held throughout).
    if (s.update_count > 0)
        appendf(o, "  updates   %.0f update RPCs reaching %.0f job records: per update p50 %s, p99 %s\n", s.update_count,
                s.update_records, quantile(s.update_buckets, s.update_count, 0.5).c_str(),
                quantile(s.update_buckets, s.update_count, 0.99).c_str());
    appendf(o, "  faults    %.0f jobs let through on an internal fault; dropped: feature log %.0f, script archive %.0f\n",
            s.faults, s.dropped_log, s.dropped_archive);
    if (s.budget_log + s.budget_archive > 0 || s.users_over > 0)
        appendf(o, "  budget    %.0f users over user_mb_per_day today; left out: feature log %.0f, script archive %.0f requests "
                   "(slurmctld's log names the users)\n",
                s.users_over, s.budget_log, s.budget_archive);
    // The background thread wakes every reload_interval (at most an hour) and writes every metrics_interval.
    const double stale_after = std::max(600.0, 3 * s.interval);
    stale = s.written > 0 && now - s.written > stale_after;
    if (stale)
        appendf(o, "jfp status: the file is %s old: slurmctld is not writing it (stopped, or metrics_file changed)\n",
                ago(now - s.written).c_str());
    return o;
}

bool report_plugin_status(const std::string &path, double now, std::ostream &out) {
    std::ifstream in(path);
    if (!in) {
        const int err = errno;
        // Not there is the plugin's to fix; there but unreadable is this user's.
        if (err == EACCES || err == EPERM)
            throw std::runtime_error(path + ": cannot read the plugin's metrics file: " + std::strerror(err) +
                                     " (run jfp status as root or SlurmUser, or let this user read the file and its "
                                     "directory: admin guide, Prometheus)");
        throw std::runtime_error(path + ": cannot read the plugin's metrics file" +
                                 (err ? std::string(": ") + std::strerror(err) : std::string()) +
                                 " (is slurmctld running with metrics_file set, and has a metrics_interval passed since "
                                 "it started?)");
    }
    const PluginStatus s = read_plugin_status(in);
    // An empty file (made for node_exporter's link before the plugin's first write) says nothing yet: not
    // "no model, no history".
    if (s.written <= 0)
        throw std::runtime_error(path + ": the plugin has not written this metrics file yet (no " +
                                 "jfp_metrics_written_seconds in it; is slurmctld running with metrics_file set, and has a "
                                 "metrics_interval passed since it started?)");
    bool stale = false;
    out << plugin_status_text(s, path, now, stale);
    return !stale;
}

}  // namespace jfp
