// The trainer's rows (tools/train/training_rows): one split's matrix, labels, classes and rule scores, the
// class model's rows taken from it, and the rows' cost weights.
#include <cmath>
#include <numeric>
#include <vector>

#include "catch.h"
#include "model/jobs/cluster_defaults.h"
#include "tools/train/training_rows.h"

namespace test_training_rows {

using namespace jfp;

namespace {

JobRecord ended(const char *key, Outcome o, int64_t submit) {
    JobRecord j;
    j.job_key = key;
    j.outcome = o;
    j.submit = submit;
    return j;
}

FeatureVector filled(float v) {
    FeatureVector f;
    f.fill(v);
    return f;
}

}  // namespace

TEST_CASE("training rows: a split's rows hold each job's features, label, class and window; failures() the failed ones by class", "[train]") {
    const ClusterDefaults none;
    RowSet rows;
    rows.add(filled(1), ended("1", Outcome::Completed, 300), none.billing_rule(""));
    rows.add(filled(2), ended("2", Outcome::Timeout, 100), none.billing_rule(""));
    rows.add(filled(3), ended("3", Outcome::OutOfMemory, 200), none.billing_rule(""));
    REQUIRE(rows.size() == 3);
    CHECK(rows.x.size() == 3 * static_cast<size_t>(kNumFeatures));
    CHECK(rows.x[static_cast<size_t>(kNumFeatures)] == 2.0f);  // row-major: row 1 starts at kNumFeatures
    CHECK(rows.positives() == 2);
    CHECK(rows.labels() == std::vector<int>{0, 1, 1});
    CHECK(rows.cls == std::vector<int>{-1, failure_class_index(Outcome::Timeout), failure_class_index(Outcome::OutOfMemory)});
    CHECK(rows.first_submit == 100);
    CHECK(rows.last_submit == 300);
    for (size_t r = 0; r < kNumRules; ++r) {
        REQUIRE(rows.rule[r].size() == 3);
        CHECK(rows.rule[r][1] == Approx(rule_score(kRules[r], filled(2))));
    }
    CHECK(rows.waste.size() == 3);
    CHECK(rows.waste[1].label == 1);

    const RowSet failed = rows.failures();
    REQUIRE(failed.size() == 2);
    CHECK(failed.x.size() == 2 * static_cast<size_t>(kNumFeatures));
    CHECK(failed.x[0] == 2.0f);
    CHECK(failed.x[static_cast<size_t>(kNumFeatures)] == 3.0f);
    // The class model's label is the failure class.
    CHECK(failed.label == std::vector<float>{static_cast<float>(failure_class_index(Outcome::Timeout)),
                                             static_cast<float>(failure_class_index(Outcome::OutOfMemory))});
}

TEST_CASE("training rows: cost weights are relative to the median, mean 1; an unbounded cost weighs as the median", "[train]") {
    std::vector<WasteJob> rows(4);
    rows[0].cost = 1;
    rows[1].cost = 2;
    rows[2].cost = 4;
    // rows[3]: no bounded cost
    const std::vector<float> w = cost_weights(rows, "cost");
    REQUIRE(w.size() == 4);
    // median 2: ratios 0.5, 1, 2 (mean 7/6); the unbounded row is the median's ratio, 1.
    CHECK(w[0] == Approx(0.5 / (3.5 / 3)));
    CHECK(w[1] == Approx(1 / (3.5 / 3)));
    CHECK(w[2] == Approx(2 / (3.5 / 3)));
    CHECK(w[3] == Approx(w[1]));
    const std::vector<float> lw = cost_weights(rows, "log-cost");
    CHECK(lw[2] / lw[0] == Approx(std::log1p(4.0) / std::log1p(1.0)));
    // Nothing priced: every row weighs 1.
    CHECK(cost_weights(std::vector<WasteJob>(3), "cost") == std::vector<float>{1, 1, 1});
}

}  // namespace test_training_rows
