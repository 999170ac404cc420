// jfp parity's engine (tools/score/feature_parity): the features the plugin logged against those the
// sweep rebuilds from the store.
#include <cmath>
#include <string>
#include <unordered_map>

#include "catch.h"
#include "history_workload.h"
#include "model/scoring/feature_sweep.h"
#include "test_support.h"
#include "tools/score/feature_parity.h"

namespace test_feature_parity {

using namespace jfp;

namespace {

// Every tokened job's rebuilt vector, logged as the plugin logs it.
std::unordered_map<std::string, LoggedFeatures> log_as_rebuilt(const HistoryStore &store) {
    std::unordered_map<std::string, LoggedFeatures> logged;
    sweep_features(store, [&](const JobRecord &j, const FeatureVector &x) {
        if (j.jfp_token.empty()) return;
        LoggedFeatures l;
        l.schema_version = kFeatureSchemaVersion;
        l.x = x;
        logged[j.jfp_token] = l;
    });
    return logged;
}

// A compared feature whose logged value is a number (a NaN perturbed stays NaN).
int numeric_feature(const FeatureVector &x) {
    for (int f = 0; f < kNumFeatures; ++f)
        if (!plugin_only_feature(f) && !std::isnan(x[static_cast<size_t>(f)])) return f;
    return -1;
}

}  // namespace

TEST_CASE("parity: a job built both ways agrees on every compared feature; a perturbed one differs, named", "[parity]") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::Workload w(31);
    test::put(store, w.ended_series(120));
    auto logged = log_as_rebuilt(store);
    REQUIRE(logged.size() > 20);

    ParityOptions o;
    o.db = dir.file("h.db");
    FeatureParity same = compare_logged_features(store, logged, o);
    CHECK(same.jobs == logged.size());
    for (int f = 0; f < kNumFeatures; ++f) {
        const size_t i = static_cast<size_t>(f);
        CHECK(same.differ[i] == 0);
        CHECK(same.agree[i] == (plugin_only_feature(f) ? 0 : same.jobs));
    }

    // One job's logged value moved well past the tolerance: that feature differs for that job alone.
    auto &one = logged.begin()->second;
    const std::string token = logged.begin()->first;
    const int f = numeric_feature(one.x);
    REQUIRE(f >= 0);
    const size_t i = static_cast<size_t>(f);
    one.x[i] += 1000.0f;
    FeatureParity moved = compare_logged_features(store, logged, o);
    CHECK(moved.jobs == same.jobs);
    CHECK(moved.differ[i] == 1);
    CHECK(moved.agree[i] == same.jobs - 1);
    CHECK_THAT(moved.example[i], HasText("job " + token.substr(1) + ": plugin"));
    for (int g = 0; g < kNumFeatures; ++g)
        if (g != f) CHECK(moved.differ[static_cast<size_t>(g)] == 0);

    // Within the relative tolerance, the same move agrees.
    o.tolerance = 1e6;
    CHECK(compare_logged_features(store, logged, o).differ[i] == 0);
}

TEST_CASE("parity: only jobs submitted in [after, before) are compared; none at all is an error saying what to do", "[parity]") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::Workload w(32);
    test::put(store, w.ended_series(60));
    auto logged = log_as_rebuilt(store);
    ParityOptions o;
    o.db = dir.file("h.db");
    o.feature_log = "fl.db";
    const uint64_t all = compare_logged_features(store, logged, o).jobs;
    int64_t mid = 0;
    uint64_t before_mid = 0;
    {
        std::vector<int64_t> submits;
        sweep_features(store, [&](const JobRecord &j, const FeatureVector &) {
            if (!j.jfp_token.empty()) submits.push_back(j.submit);
        });
        mid = submits[submits.size() / 2];
        for (int64_t s : submits) before_mid += s < mid;
    }
    o.before = mid;
    CHECK(compare_logged_features(store, logged, o).jobs == before_mid);
    o.before = INT64_MAX;
    o.after = mid;
    CHECK(compare_logged_features(store, logged, o).jobs == all - before_mid);
    CHECK_THROWS_WITH(compare_logged_features(store, {}, o), HasText("carries a token found in fl.db"));
}

}  // namespace test_feature_parity
