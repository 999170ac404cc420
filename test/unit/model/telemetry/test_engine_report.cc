// What the engine says about itself: the stats line in slurmctld's log and the metrics file, each at its interval.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch.h"
#include "model/telemetry/engine_report.h"
#include "model/util/log.h"
#include "test_support.h"

namespace test_engine_report {

using namespace jfp;

namespace {

std::vector<std::string> g_said;
void capture(LogLevel, const char *m) { g_said.emplace_back(m); }

struct Reporting {
    EngineCounters counters;
    LatencyHistogram submit, submit_cpu, submit_walk;
    UpdateLatency update;
    EngineReporter reporter{{counters, submit, submit_cpu, submit_walk, update}};
    // The lines log_stats said.
    std::vector<std::string> stats(bool final, double interval) {
        g_said.clear();
        set_log_sink(capture);
        reporter.log_stats(final, interval);
        set_log_sink(nullptr);
        return g_said;
    }
};

}  // namespace

TEST_CASE("engine report: the stats line says the interval's submissions and decisions, only when jobs came") {
    Reporting r;
    CHECK(r.stats(true, 60).empty());  // no job: nothing to say
    for (int i = 0; i < 3; ++i) r.submit.record(2000);
    r.counters.add(Counter::Scored, 3);
    r.counters.add(Counter::Warned);
    CHECK(r.stats(false, 3600).empty());  // the interval has not passed
    auto said = r.stats(true, 3600);
    REQUIRE(said.size() == 1);
    CHECK_THAT(said[0], HasText("stats: 3 submissions in the last"));
    CHECK_THAT(said[0], HasText("(plugin unloading); job_submit p50"));
    CHECK_THAT(said[0], HasText("scored 3, annotated 0, warned 1, rejected 0, unscored 0"));
    CHECK(said[0].find("updates") == std::string::npos);
    CHECK(said[0].find("on-CPU") == std::string::npos);  // no call sampled: no on-CPU figure
    // The sampled calls' CPU time is said beside the wall time, from its own histogram.
    r.submit.record(40000);
    r.submit_cpu.record(9000);
    said = r.stats(true, 3600);
    REQUIRE(said.size() == 1);
    CHECK_THAT(said[0], HasText("job_submit p50 4"));
    CHECK_THAT(said[0], HasText("on-CPU (1 sampled) p50 9."));
    CHECK(said[0].find("tree walks") == std::string::npos);  // none timed: none said
    r.submit.record(40000);
    r.submit_cpu.record(9000);
    r.submit_walk.record(5000);
    said = r.stats(true, 3600);
    REQUIRE(said.size() == 1);
    CHECK_THAT(said[0], HasText("their tree walks p50 5."));
    // The next line counts from this one.
    r.submit.record(2000);
    r.counters.add(Counter::Scored);
    said = r.stats(true, 3600);
    REQUIRE(said.size() == 1);
    CHECK_THAT(said[0], HasText("stats: 1 submissions"));
    CHECK_THAT(said[0], HasText("scored 1, annotated 0, warned 0"));
    CHECK(r.stats(false, 0).empty());  // stats_interval 0: never
}

TEST_CASE("engine report: the metrics file is written at its interval, or now; not at all when none is named") {
    test::TempDir dir;
    Reporting r;
    PublishedState st;
    HistoryLock lock;
    UserWriteBudget budget(1 << 20);
    r.reporter.write_metrics(true, st, lock, budget, "c");  // metrics_file unset
    st.config.metrics_file = dir.file("jfp.prom");
    st.config.metrics_interval_seconds = 3600;
    r.counters.add(Counter::Scored, 7);
    r.reporter.write_metrics(false, st, lock, budget, "c");
    auto read = [&] {
        std::ifstream in(st.config.metrics_file);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    };
    std::string text = read();
    CHECK_THAT(text, HasText("jfp_jobs_total{cluster=\"c\",decision=\"scored\"} 7\n"));
    CHECK_THAT(text, HasText("jfp_metrics_interval_seconds{cluster=\"c\"} 3600\n"));
    r.counters.add(Counter::Scored);
    r.reporter.write_metrics(false, st, lock, budget, "c");  // within the interval: the file stays
    CHECK_THAT(read(), HasText("decision=\"scored\"} 7\n"));
    r.reporter.write_metrics(true, st, lock, budget, "c");
    CHECK_THAT(read(), HasText("decision=\"scored\"} 8\n"));
}

}  // namespace test_engine_report
