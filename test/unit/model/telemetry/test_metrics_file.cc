// The metrics file: Prometheus' text format as node_exporter's textfile collector reads it, written whole.
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>

#include "catch.h"
#include "model/telemetry/metrics_file.h"
#include "test_support.h"

namespace test_metrics_file {

using namespace jfp;

TEST_CASE("metrics file: a label value is escaped as the format asks and cut at 200 bytes") {
    CHECK(prometheus_label("plain") == "plain");
    CHECK(prometheus_label("a\"b\\c\nd") == "a\\\"b\\\\c\\nd");
    CHECK(prometheus_label(std::string(300, 'x')) == std::string(200, 'x'));
}

TEST_CASE("metrics file: the model's lines only with a model; the histogram's buckets cumulative") {
    MetricsSnapshot m;
    m.cluster = "c\"1";
    m.history_jobs = 12;
    m.latency[0] = 3;
    m.latency[LatencyHistogram::kBuckets - 1] = 2;
    m.written_epoch = 1700000000;
    m.interval_seconds = 30;
    std::string text = prometheus_text(m);
    INFO(text);
    CHECK_THAT(text, HasText("jfp_history_jobs{cluster=\"c\\\"1\"} 12\n"));
    CHECK_THAT(text, HasText("jfp_submit_seconds_count{cluster=\"c\\\"1\"} 5\n"));
    CHECK_THAT(text, HasText("jfp_submit_seconds_bucket{cluster=\"c\\\"1\",le=\"1e-06\"} 3\n"));
    CHECK_THAT(text, HasText("jfp_submit_seconds_bucket{cluster=\"c\\\"1\",le=\"+Inf\"} 5\n"));
    CHECK_THAT(text, HasText("jfp_metrics_written_seconds{cluster=\"c\\\"1\"} 1700000000\n"));
    CHECK_THAT(text, HasText("jfp_metrics_interval_seconds{cluster=\"c\\\"1\"} 30\n"));
    CHECK(text.find("jfp_model_info{") == std::string::npos);  // declared, no sample
    CHECK_THAT(text, HasText("# TYPE jfp_model_info gauge\n"));
    CHECK(text.find("jfp_history_latest_end_seconds{") == std::string::npos);
    m.model_id = "m1";
    m.model_kind = "tree";
    m.mode = "warn";
    m.threshold = 0.25;
    text = prometheus_text(m);
    CHECK_THAT(text, HasText("jfp_model_info{cluster=\"c\\\"1\",model=\"m1\",kind=\"tree\",mode=\"warn\"} 1\n"));
    CHECK_THAT(text, HasText("jfp_model_threshold{cluster=\"c\\\"1\"} 0.250000\n"));
}

TEST_CASE("metrics file: written whole, mode 0644; a directory that is not there is an error that names it") {
    test::TempDir dir;
    const std::string path = dir.file("jfp.prom");
    write_metrics_file(path, "a 1\n");
    write_metrics_file(path, "b 2\n");
    std::ifstream in(path);
    std::stringstream got;
    got << in.rdbuf();
    CHECK(got.str() == "b 2\n");
    struct stat st {};
    REQUIRE(stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0644);
    try {
        write_metrics_file(dir.file("no/such/jfp.prom"), "x\n");
        FAIL("expected an error");
    } catch (const std::runtime_error &e) {
        CHECK_THAT(std::string(e.what()), HasText(dir.file("no/such/jfp.prom")));
    }
}

}  // namespace test_metrics_file
