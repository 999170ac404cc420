// jfp status's engine: the plugin's metrics file (metrics_file in jfp.conf; model/telemetry/metrics_file.h)
// read back and told to a person.
#pragma once

#include <cmath>
#include <istream>
#include <ostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace jfp {

// One sample line: `name{a="x",b="y"} 12`. Only our own writer's lines: no timestamps, simple escapes.
struct MetricSample {
    std::string name;
    std::map<std::string, std::string> labels;
    double value = 0;
};

// False for a comment, a blank line and a line that is not a sample (then s is not to be used).
bool parse_metric_sample(const std::string &line, MetricSample &s);

// "45 s ago", "12 min ago", "3.5 hours ago", "2.1 days ago".
std::string ago(double seconds);

// What the file says, as jfp status uses it.
struct PluginStatus {
    std::map<std::string, double> jobs;  // by decision
    std::vector<std::pair<double, double>> submit_buckets, update_buckets;  // le (s), cumulative count
    double submit_count = 0, update_count = 0, update_records = 0;
    std::string model, kind, mode;  // model empty: none loaded
    double threshold = NAN, created = 0, history_jobs = 0, latest_end = 0, written = 0, faults = 0;
    double dropped_log = 0, dropped_archive = 0, interval = 60;
    double budget_log = 0, budget_archive = 0, users_over = 0;
};

PluginStatus read_plugin_status(std::istream &in);

// The report jfp status prints for the file at path, read now (Unix time); stale is set when the plugin
// has stopped writing it.
std::string plugin_status_text(const PluginStatus &s, const std::string &path, double now, bool &stale);

// Reads the file at path and writes its report to out; returns false when the file is stale (jfp status
// exits 1). Throws with what to do when the file cannot be read or the plugin has not written it yet.
bool report_plugin_status(const std::string &path, double now, std::ostream &out);

}  // namespace jfp
