// jfp monitor's report for a given summary (tools/monitor/monitor_run.h): the text and the JSON say the
// same figures, per period and in all, plain and per user, with the drift, notes and alerts.
#include <cmath>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "catch.h"
#include "model/scoring/features.h"
#include "model/util/time_util.h"
#include "test_support.h"
#include "tools/monitor/monitor_run.h"

namespace test_monitor_run {

using namespace jfp;

namespace {

// Five jobs scored, four with an outcome: uid 1 failed and flagged, uid 2 failed unflagged, uid 3
// completed flagged, uid 1 completed unflagged. Precision 1/2, recall 1/2.
LiveMonitorReport sample_report() {
    LiveMonitorReport r;
    r.model_id = "m-live";
    r.target = 0.9;
    r.max_psi = 0.25;
    r.min_users = 3;
    LiveSummary &s = r.live;
    s.user_cap = 10;
    const int64_t week = *parse_sacct_time("2024-03-04");
    LivePeriod &p = s.periods[week];
    for (LivePeriod *q : {&p, &s.total}) {
        q->scored = 5;
        q->add_outcome(1, true, true, 0.9, 2);
        q->add_outcome(2, true, false, 0.2, 3);
        q->add_outcome(3, false, true, 0.8, 1);
        q->add_outcome(1, false, false, 0.1, 1);
    }
    s.window_start = "2024-01-01";
    s.window_end = "2024-02-01";
    s.training_rows = 1234;
    s.live_users = 3;
    FeatureDrift d;
    d.feature = 0;
    d.psi = 0.3;
    d.capped = 0.2;
    d.lowest_without_one = 0.1;
    s.drift.push_back(d);
    r.verdict.alerts = {"live precision 0.500 is below the target 0.900"};
    r.verdict.notes = {"first note", "second note"};
    r.verdict.judged_precision = 0.5;
    return r;
}

}  // namespace

TEST_CASE("monitor report: the text gives the header, the rows per week and in all, drift, per user, notes and alerts") {
    const std::string text = live_monitor_text(sample_report());
    INFO(text);
    CHECK_THAT(text, HasText("jfp monitor: model m-live; 5 jobs scored, 4 with an outcome (2 failed)\n"));
    CHECK_THAT(text, HasText("  week of       scored  outcome  failed  flagged precision  recall predicted  observed "
                             "prec/user rec/user  users\n"));
    CHECK_THAT(text, HasText("  2024-03-04         5        4       2        2     0.500   0.500     0.500     0.500     "
                             "0.500    0.500      2\n"));
    CHECK_THAT(text, HasText("  all                5        4       2        2     0.500   0.500     0.500     0.500     "
                             "0.500    0.500      2\n"));
    CHECK_THAT(text, HasText("failed jobs burnt 5, of which flagged jobs 2 (40.0%); flagged jobs that completed used 1\n"));
    CHECK_THAT(text, HasText("drift of the 1 features the model uses, from the training window (2024-01-01 .. 2024-02-01, "
                             "1234 jobs), PSI, largest first: " + std::string(feature_names()[0]) + " 0.300 (per user 0.200)\n"));
    CHECK_THAT(text, HasText("at most 10 (--user-cap); flagged jobs with an outcome from 2 users, scored jobs from 3 users; "
                             "alerts judge the per-user figures and need 3 users (--min-users) and to hold with any one "
                             "user's jobs left out\n"));
    CHECK_THAT(text, HasText("  note: first note; second note\n"));
    CHECK_THAT(text, HasText("  ALERT: live precision 0.500 is below the target 0.900\n"));
    CHECK(text.find("another model") == std::string::npos);
}

TEST_CASE("monitor report: per day, since a time, and jobs scored by another model") {
    LiveMonitorReport r = sample_report();
    r.weekly = false;
    r.since = *parse_sacct_time("2024-03-01");
    r.live.scored_by_other_models = 2;
    r.verdict = {};
    const std::string text = live_monitor_text(r);
    CHECK_THAT(text, HasText("5 jobs scored since 2024-03-01T00:00:00, 4 with an outcome"));
    CHECK_THAT(text, HasText("  2 of them were scored by another model (a reload since)\n"));
    CHECK_THAT(text, HasText("  day           scored"));
    CHECK(text.find("note:") == std::string::npos);
    CHECK(text.find("ALERT") == std::string::npos);
}

TEST_CASE("monitor report: the JSON holds the same figures; ratios without a denominator are null") {
    LiveMonitorReport r = sample_report();
    r.live.periods[*parse_sacct_time("2024-03-11")].scored = 1;  // a week with nothing ended yet
    const auto j = nlohmann::json::parse(live_monitor_json(r));
    CHECK(j["model_id"] == "m-live");
    CHECK(j["since"].is_null());
    CHECK(j["period"] == "week");
    CHECK(j["total"]["scored"] == 5);
    CHECK(j["total"]["true_positives"] == 1);
    CHECK(j["total"]["precision"].get<double>() == Approx(0.5));
    CHECK(j["total"]["precision_per_user"].get<double>() == Approx(0.5));
    CHECK(j["total"]["flagged_users"] == 2);
    CHECK(j["total"]["failed_core_hours"].get<double>() == Approx(5));
    REQUIRE(j["periods"].size() == 2);
    CHECK(j["periods"][0]["start"] == "2024-03-04");
    CHECK(j["periods"][1]["start"] == "2024-03-11");
    CHECK(j["periods"][1]["precision"].is_null());
    CHECK(j["periods"][1]["precision_per_user"].is_null());
    CHECK(j["training_window"] == nlohmann::json::array({"2024-01-01", "2024-02-01"}));
    CHECK(j["drift"][0]["feature"] == feature_names()[0]);
    CHECK(j["drift"][0]["psi_per_user_lowest_without_one"].get<double>() == Approx(0.1));
    CHECK(j["judged_precision"].get<double>() == Approx(0.5));
    CHECK(j["judged_psi"].is_null());
    CHECK(j["alerts"].size() == 1);
    CHECK(j["note"] == "first note; second note");
    CHECK(j["target_precision"].get<double>() == Approx(0.9));
}

TEST_CASE("monitor run: a model that cannot be read is an error before anything is said") {
    test::TempDir dir;
    LiveMonitorOptions o;
    o.model = dir.file("none.json");
    o.db = dir.file("h.db");
    o.feature_log = dir.file("f.db");
    std::ostringstream out;
    CHECK_THROWS_WITH(run_live_monitor(o, out), HasText("none.json"));
    CHECK(out.str().empty());
}

}  // namespace test_monitor_run
