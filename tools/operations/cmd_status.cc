// jfp status: the plugin's metrics file (metrics_file in jfp.conf; model/telemetry/metrics_file.h) for a person.
#include <sys/stat.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "tools/operations/operations.h"
#include "tools/options/site_conf.h"

namespace jfp {

namespace {

struct StatusArgs {
    ConfDefaults conf;
    std::string metrics;
};

// "name{a="x",b="y"} 12" -> name, {a: x, b: y}, 12. Our own writer's lines: no timestamps, simple escapes.
struct Sample {
    std::string name;
    std::map<std::string, std::string> labels;
    double value = 0;
};

bool parse_sample(const std::string &line, Sample &s) {
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

void run_status(StatusArgs &a) {
    a.conf.fill(a.metrics, ConfPath::Metrics, "--metrics", true);
    std::ifstream in(a.metrics);
    if (!in) {
        const int err = errno;
        // Not there is the plugin's to fix; there but unreadable is this user's.
        if (err == EACCES || err == EPERM)
            throw std::runtime_error(a.metrics + ": cannot read the plugin's metrics file: " + std::strerror(err) +
                                     " (run jfp status as root or SlurmUser, or let this user read the file and its "
                                     "directory: admin guide, Prometheus)");
        throw std::runtime_error(a.metrics + ": cannot read the plugin's metrics file" +
                                 (err ? std::string(": ") + std::strerror(err) : std::string()) +
                                 " (is slurmctld running with metrics_file set, and has a metrics_interval passed since "
                                 "it started?)");
    }
    std::map<std::string, double> jobs;
    std::vector<std::pair<double, double>> buckets, update_buckets;  // le (s), cumulative count
    Sample s;
    std::string model, kind, mode;
    double threshold = NAN, created = 0, hist_jobs = 0, latest_end = 0, written = 0, faults = 0, count = 0;
    double dropped_log = 0, dropped_archive = 0, interval = 60, update_count = 0, update_records = 0;
    double budget_log = 0, budget_archive = 0, users_over = 0;
    for (std::string line; std::getline(in, line);) {
        if (!parse_sample(line, s)) continue;
        if (s.name == "jfp_jobs_total") jobs[s.labels["decision"]] = s.value;
        else if (s.name == "jfp_submit_seconds_bucket" && s.labels["le"] != "+Inf") buckets.push_back({std::strtod(s.labels["le"].c_str(), nullptr), s.value});
        else if (s.name == "jfp_submit_seconds_count") count = s.value;
        else if (s.name == "jfp_update_seconds_bucket" && s.labels["le"] != "+Inf") update_buckets.push_back({std::strtod(s.labels["le"].c_str(), nullptr), s.value});
        else if (s.name == "jfp_update_seconds_count") update_count = s.value;
        else if (s.name == "jfp_update_record_seconds_count") update_records = s.value;
        else if (s.name == "jfp_model_info") model = s.labels["model"], kind = s.labels["kind"], mode = s.labels["mode"];
        else if (s.name == "jfp_model_threshold") threshold = s.value;
        else if (s.name == "jfp_model_created_seconds") created = s.value;
        else if (s.name == "jfp_history_jobs") hist_jobs = s.value;
        else if (s.name == "jfp_history_latest_end_seconds") latest_end = s.value;
        else if (s.name == "jfp_metrics_written_seconds") written = s.value;
        else if (s.name == "jfp_faults_total") faults = s.value;
        else if (s.name == "jfp_metrics_interval_seconds") interval = s.value;
        else if (s.name == "jfp_dropped_total") (s.labels["what"] == "feature_log" ? dropped_log : dropped_archive) = s.value;
        else if (s.name == "jfp_user_budget_refused_total") (s.labels["what"] == "feature_log" ? budget_log : budget_archive) = s.value;
        else if (s.name == "jfp_users_over_budget") users_over = s.value;
    }
    // An empty file (made for node_exporter's link before the plugin's first write) says nothing yet: not
    // "no model, no history".
    if (written <= 0)
        throw std::runtime_error(a.metrics + ": the plugin has not written this metrics file yet (no " +
                                 "jfp_metrics_written_seconds in it; is slurmctld running with metrics_file set, and has a "
                                 "metrics_interval passed since it started?)");
    const double now = static_cast<double>(std::time(nullptr));
    std::printf("jfp status: %s, written %s\n", a.metrics.c_str(), ago(now - written).c_str());
    if (model.empty()) std::printf("  model     none loaded: every job passes unscored\n");
    else
        std::printf("  model     %s (%s), threshold %.4f, trained %s; mode %s\n", model.c_str(), kind.c_str(), threshold,
                    created > 0 ? ago(now - created).c_str() : "(unknown)", mode.c_str());
    std::printf("  history   %.0f jobs; the newest ended %s\n", hist_jobs, latest_end > 0 ? ago(now - latest_end).c_str() : "(none)");
    std::printf("  jobs      scored %.0f, annotated %.0f, warned %.0f, rejected %.0f, overridden %.0f, exempt %.0f, unscored %.0f, "
                "updates %.0f (%.0f by others than the owner, not judged)\n",
                jobs["scored"], jobs["annotated"], jobs["warned"], jobs["rejected"], jobs["overridden"], jobs["exempt"],
                jobs["unscored"], jobs["updated"], jobs["update_not_owner"]);
    auto quantile = [](const std::vector<std::pair<double, double>> &buckets, double count, double q) -> std::string {
        for (const auto &[le, n] : buckets)
            if (count > 0 && n >= q * count) {
                char b[32];
                std::snprintf(b, sizeof b, "<= %g us", le * 1e6);
                return b;
            }
        return "> " + std::to_string(static_cast<int>(buckets.empty() ? 0 : buckets.back().first * 1000)) + " ms";
    };
    if (count > 0)
        std::printf("  latency   %.0f submissions: p50 %s, p99 %s\n", count, quantile(buckets, count, 0.5).c_str(),
                    quantile(buckets, count, 0.99).c_str());
    // An update RPC's time is all the job records it reached together (slurmctld's job write lock is held throughout).
    if (update_count > 0)
        std::printf("  updates   %.0f update RPCs reaching %.0f job records: per update p50 %s, p99 %s\n", update_count,
                    update_records, quantile(update_buckets, update_count, 0.5).c_str(),
                    quantile(update_buckets, update_count, 0.99).c_str());
    std::printf("  faults    %.0f jobs let through on an internal fault; dropped: feature log %.0f, script archive %.0f\n",
                faults, dropped_log, dropped_archive);
    if (budget_log + budget_archive > 0 || users_over > 0)
        std::printf("  budget    %.0f users over user_mb_per_day today; left out: feature log %.0f, script archive %.0f requests "
                    "(slurmctld's log names the users)\n",
                    users_over, budget_log, budget_archive);
    // The background thread wakes every reload_interval (at most an hour) and writes every metrics_interval.
    const double stale = std::max(600.0, 3 * interval);
    if (written > 0 && now - written > stale) {
        std::printf("jfp status: the file is %s old: slurmctld is not writing it (stopped, or metrics_file changed)\n",
                    ago(now - written).c_str());
        g_exit_status = 1;
    }
}

}  // namespace

void add_status_command(Command &app) {
    auto a = std::make_shared<StatusArgs>();
    auto *c = app.add_subcommand("status", "What the plugin in slurmctld is doing, from its metrics file: model, history, decisions, latency");
    c->add_option("--metrics", a->metrics, "the plugin's metrics file (metrics_file in jfp.conf)");
    a->conf.add_option(c);
    c->callback([a] { run_status(*a); });
}

}  // namespace jfp
