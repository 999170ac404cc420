// jfp status's engine: the plugin's metrics file read back (tools/monitor/plugin_status.h).
#include <sstream>
#include <stdexcept>

#include "catch.h"
#include "test_support.h"
#include "tools/monitor/plugin_status.h"

namespace test_plugin_status {

using namespace jfp;

namespace {

const double kNow = 1700000000;

// A file as the plugin writes it (model/runtime/metrics_file.cc), written 30 s before kNow.
const char *kFile =
    "# HELP jfp_jobs_total Jobs by decision.\n"
    "# TYPE jfp_jobs_total counter\n"
    "jfp_jobs_total{decision=\"scored\"} 120\n"
    "jfp_jobs_total{decision=\"warned\"} 7\n"
    "jfp_jobs_total{decision=\"rejected\"} 2\n"
    "jfp_jobs_total{decision=\"updated\"} 40\n"
    "jfp_jobs_total{decision=\"update_not_owner\"} 3\n"
    "jfp_jobs_total{decision=\"update_unjudged\"} 9\n"
    "jfp_submit_seconds_bucket{le=\"0.0001\"} 50\n"
    "jfp_submit_seconds_bucket{le=\"0.001\"} 119\n"
    "jfp_submit_seconds_bucket{le=\"0.01\"} 120\n"
    "jfp_submit_seconds_bucket{le=\"+Inf\"} 120\n"
    "jfp_submit_seconds_count 120\n"
    "jfp_model_info{model=\"m-2024\",kind=\"tree\",mode=\"warn\"} 1\n"
    "jfp_model_threshold 0.61\n"
    "jfp_history_jobs 5000\n"
    "jfp_metrics_written_seconds 1699999970\n"
    "jfp_dropped_total{what=\"feature_log\"} 3\n"
    "jfp_dropped_total{what=\"script_archive\"} 4\n"
    "jfp_metrics_interval_seconds 60\n";

}  // namespace

TEST_CASE("plugin status: a sample line gives its name, labels (unescaped) and value") {
    MetricSample s;
    REQUIRE(parse_metric_sample("jfp_model_info{model=\"a\\\"b\\nc\",kind=\"tree\"} 1", s));
    CHECK(s.name == "jfp_model_info");
    CHECK(s.labels.size() == 2);
    CHECK(s.labels["model"] == "a\"b\nc");
    CHECK(s.labels["kind"] == "tree");
    CHECK(s.value == 1);
    REQUIRE(parse_metric_sample("jfp_history_jobs 5000", s));
    CHECK(s.name == "jfp_history_jobs");
    CHECK(s.labels.empty());
    CHECK(s.value == 5000);
}

TEST_CASE("plugin status: comments, blank and malformed lines are not samples") {
    MetricSample s;
    CHECK_FALSE(parse_metric_sample("", s));
    CHECK_FALSE(parse_metric_sample("# TYPE jfp_jobs_total counter", s));
    CHECK_FALSE(parse_metric_sample("jfp_history_jobs", s));                // no value
    CHECK_FALSE(parse_metric_sample("jfp_jobs_total{decision=scored} 1", s));  // label value not quoted
    CHECK_FALSE(parse_metric_sample("jfp_jobs_total{decision} 1", s));      // no '='
    CHECK_FALSE(parse_metric_sample("jfp_jobs_total{decision=\"x\"}", s));  // no value after the labels
}

TEST_CASE("plugin status: ago() picks seconds, minutes, hours or days") {
    CHECK(ago(45) == "45 s ago");
    CHECK(ago(600) == "10 min ago");
    CHECK(ago(5 * 3600) == "5.0 hours ago");
    CHECK(ago(3 * 86400) == "3.0 days ago");
}

TEST_CASE("plugin status: the file read skips lines it cannot parse and keeps the rest") {
    std::istringstream in(std::string(kFile) + "garbage line without value\njfp_faults_total{broken 9\njfp_faults_total 2\n");
    const PluginStatus s = read_plugin_status(in);
    CHECK(s.jobs.at("scored") == 120);
    CHECK(s.jobs.at("warned") == 7);
    CHECK(s.submit_buckets.size() == 3);  // +Inf left out
    CHECK(s.submit_count == 120);
    CHECK(s.model == "m-2024");
    CHECK(s.kind == "tree");
    CHECK(s.mode == "warn");
    CHECK(s.threshold == 0.61);
    CHECK(s.written == 1699999970);
    CHECK(s.dropped_log == 3);
    CHECK(s.dropped_archive == 4);
    CHECK(s.faults == 2);
}

TEST_CASE("plugin status: the report says the model, the decisions, the latency quantiles and staleness") {
    std::istringstream in(kFile);
    const PluginStatus s = read_plugin_status(in);
    bool stale = true;
    const std::string text = plugin_status_text(s, "/run/jfp.prom", kNow, stale);
    CHECK_FALSE(stale);
    CHECK_THAT(text, HasText("jfp status: /run/jfp.prom, written 30 s ago\n"));
    CHECK_THAT(text, HasText("  model     m-2024 (tree), threshold 0.6100, trained (unknown); mode warn\n"));
    CHECK_THAT(text, HasText("  history   5000 jobs; the newest ended (none)\n"));
    CHECK_THAT(text, HasText("scored 120, annotated 0, warned 7, rejected 2,"));
    CHECK_THAT(text, HasText("updates 40 (not judged: 3 by others than the owner, 9 past update_budget_ms)\n"));
    CHECK_THAT(text, HasText("  latency   120 submissions: p50 <= 1000 us, p99 <= 1000 us\n"));
    CHECK_THAT(text, HasText("dropped: feature log 3, script archive 4\n"));
    CHECK(text.find("\n  budget ") == std::string::npos);  // no user over user_mb_per_day

    const std::string later = plugin_status_text(s, "/run/jfp.prom", kNow + 3630, stale);
    CHECK(stale);  // an hour past a 60 s interval: slurmctld stopped writing it
    CHECK_THAT(later, HasText("jfp status: the file is 61 min ago old: slurmctld is not writing it"));
}

TEST_CASE("plugin status: a missing file and a file the plugin has not written yet are errors that say so") {
    test::TempDir dir;
    std::ostringstream out;
    try {
        report_plugin_status(dir.file("none.prom"), kNow, out);
        FAIL("a missing file was read");
    } catch (const std::runtime_error &e) {
        CHECK_THAT(std::string(e.what()), HasText("cannot read the plugin's metrics file: No such file"));
    }
    test::write_file(dir.file("empty.prom"), "");
    try {
        report_plugin_status(dir.file("empty.prom"), kNow, out);
        FAIL("an empty file was reported");
    } catch (const std::runtime_error &e) {
        CHECK_THAT(std::string(e.what()), HasText("the plugin has not written this metrics file yet"));
    }
    CHECK(out.str().empty());
    test::write_file(dir.file("jfp.prom"), kFile);
    CHECK(report_plugin_status(dir.file("jfp.prom"), kNow, out));
    CHECK_THAT(out.str(), HasText("model     m-2024 (tree)"));
    CHECK_FALSE(report_plugin_status(dir.file("jfp.prom"), kNow + 86400, out));
}

}  // namespace test_plugin_status
