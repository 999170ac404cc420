// jfp eval's engine (tools/evaluate/model_evaluation): a bundle over the finished jobs from a time gives the
// metrics the metrics module computes for the same rows, beside the rules.
#include <algorithm>
#include <climits>

#include "catch.h"
#include "model/scoring/feature_sweep.h"
#include "model/util/time_util.h"
#include "bundle_support.h"
#include "test_support.h"
#include "tools/evaluate/model_evaluation.h"

namespace test_model_evaluation {

using namespace jfp;

TEST_CASE("eval: the model's and the rules' metrics are those of the same rows, scored by the sweep", "[eval]") {
    test::TempDir dir;
    const std::string db = test::build_store(dir, 3000, 41);
    const std::string model = test::train_small_bundle(dir, db, 10);
    const ModelBundle bundle = ModelBundle::load_file(model);
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    const int64_t after = test::submit_time_between(store, 2, 3);

    std::vector<float> p;
    std::array<std::vector<float>, kNumRules> rule_p;
    std::vector<int> labels;
    uint64_t classed = 0;
    sweep_features(store, [&](const JobRecord &j, const FeatureVector &x) {
        if (j.submit < after || !is_labeled(j.outcome)) return;
        p.push_back(bundle.score(x).p_fail);
        labels.push_back(is_failure(j.outcome) ? 1 : 0);
        for (size_t r = 0; r < kNumRules; ++r) rule_p[r].push_back(rule_score(kRules[r], x));
        classed += failure_class_index(j.outcome) >= 0;
    });
    REQUIRE(labels.size() > 100);

    EvalOptions o;
    o.db = db;
    o.after = after;
    const ModelEvaluation e = evaluate_model(store, bundle, o);
    const BinaryMetrics want = evaluate_binary(p, labels, bundle.threshold());
    CHECK(e.threshold == Approx(bundle.threshold()));
    CHECK(e.model.n == want.n);
    CHECK(e.model.positives == want.positives);
    CHECK(e.model.roc_auc == Approx(want.roc_auc));
    CHECK(e.model.pr_auc == Approx(want.pr_auc));
    CHECK(e.model.tp == want.tp);
    CHECK(e.model.fp == want.fp);
    CHECK(e.model.fn == want.fn);
    for (size_t r = 0; r < kNumRules; ++r) {
        const BinaryMetrics rw = evaluate_binary(rule_p[r], labels, 0.5);
        CHECK(e.rules[r].pr_auc == Approx(rw.pr_auc));
        CHECK(e.rules[r].tp == rw.tp);
    }
    CHECK(e.waste.size() == labels.size());
    CHECK(e.failed == classed);
    CHECK(e.class_right <= e.failed);
    CHECK(std::string(e.unit) == "core-hours");  // no billing weights: priced by CPU

    // --threshold replaces the bundle's: the flagged jobs are those at or above it.
    o.threshold = 0.3;
    const ModelEvaluation at = evaluate_model(store, bundle, o);
    CHECK(at.model.threshold == Approx(0.3));
    CHECK(at.model.flagged() == static_cast<size_t>(std::count_if(p.begin(), p.end(), [](float v) { return v >= 0.3f; })));
}

TEST_CASE("eval: no finished job after --after is an error saying what to do", "[eval]") {
    test::TempDir dir;
    const std::string db = test::build_store(dir, 3000, 42);
    const ModelBundle bundle = ModelBundle::load_file(test::train_small_bundle(dir, db, 5));
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    EvalOptions o;
    o.after = *parse_sacct_time("2099-01-01");
    CHECK_THROWS_WITH(evaluate_model(store, bundle, o), HasText("choose an earlier --after"));
}

}  // namespace test_model_evaluation
