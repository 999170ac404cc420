// What jfp monitor writes for node_exporter (tools/monitor/live_metrics.h): a gauge per figure, labelled
// with the model; a figure that cannot be computed keeps its HELP and TYPE but has no sample.
#include <string>

#include "catch.h"
#include "tools/monitor/live_metrics.h"

namespace test_live_metrics {

using namespace jfp;

namespace {

bool has_sample(const std::string &text, const std::string &name) {
    return text.find("\n" + name + "{model=") != std::string::npos;
}

}  // namespace

TEST_CASE("live metrics: the figures of a summary, as gauges with the model's label") {
    LiveMonitorReport r;
    r.model_id = "m\"1";
    r.target = 0.8;
    r.min_users = 3;
    r.live.total.scored = 3;
    r.live.total.add_outcome(1, true, true, 0.9, 4);
    r.live.total.add_outcome(2, false, true, 0.7, 2);
    r.live.total.add_outcome(3, true, false, 0.1, 1);
    FeatureDrift d;
    d.psi = 0.4;
    r.live.drift.push_back(d);
    r.verdict.alerts = {"a", "b"};
    const std::string text = live_metrics_text(r, 20, 1700000000);
    INFO(text);
    CHECK_THAT(text, HasText("# TYPE jfp_live_precision gauge\njfp_live_precision{model=\"m\\\"1\"} 0.5\n"));
    CHECK_THAT(text, HasText("jfp_live_recall{model=\"m\\\"1\"} 0.5\n"));
    CHECK_THAT(text, HasText("jfp_live_flagged_jobs{model=\"m\\\"1\"} 2\n"));
    CHECK_THAT(text, HasText("jfp_live_min_flagged_jobs{model=\"m\\\"1\"} 20\n"));
    CHECK_THAT(text, HasText("jfp_live_flagged_users{model=\"m\\\"1\"} 2\n"));
    CHECK_THAT(text, HasText("jfp_live_min_users{model=\"m\\\"1\"} 3\n"));
    CHECK_THAT(text, HasText("jfp_live_failed_core_hours{model=\"m\\\"1\"} 5\n"));
    CHECK_THAT(text, HasText("jfp_live_target_precision{model=\"m\\\"1\"} 0.8\n"));
    CHECK_THAT(text, HasText("jfp_live_max_feature_psi{model=\"m\\\"1\"} 0.4\n"));
    CHECK_THAT(text, HasText("jfp_live_alerts{model=\"m\\\"1\"} 2\n"));
    CHECK_THAT(text, HasText("jfp_live_written_seconds{model=\"m\\\"1\"} 1700000000\n"));  // exact, not 1.7e+09
    // Not judged: the gauges are declared, with no sample.
    CHECK_THAT(text, HasText("# TYPE jfp_live_precision_judged gauge\n"));
    CHECK_FALSE(has_sample(text, "jfp_live_precision_judged"));
    CHECK_FALSE(has_sample(text, "jfp_live_max_feature_psi_judged"));
}

TEST_CASE("live metrics: nothing flagged or failed leaves precision and recall without a sample") {
    LiveMonitorReport r;
    r.model_id = "m";
    r.live.total.add_outcome(1, false, false, 0.1, 1);
    const std::string text = live_metrics_text(r, 20, 0);
    CHECK_THAT(text, HasText("# HELP jfp_live_precision "));
    CHECK_FALSE(has_sample(text, "jfp_live_precision"));
    CHECK_FALSE(has_sample(text, "jfp_live_recall"));
    CHECK_FALSE(has_sample(text, "jfp_live_precision_per_user"));
    CHECK_THAT(text, HasText("jfp_live_max_feature_psi{model=\"m\"} 0\n"));
    CHECK_THAT(text, HasText("jfp_live_alerts{model=\"m\"} 0\n"));
}

}  // namespace test_live_metrics
