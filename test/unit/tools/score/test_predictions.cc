// jfp predict's engine (tools/score/predictions): each job from --after scored as the sweep scores it, flagged
// at the bundle's threshold, and explained with the message a user would have read.
#include <algorithm>
#include <climits>
#include <sstream>
#include <string>
#include <vector>

#include "catch.h"
#include "model/scoring/feature_sweep.h"
#include "bundle_support.h"
#include "test_support.h"
#include "tools/score/predictions.h"

namespace test_predictions {

using namespace jfp;

namespace {

std::vector<std::string> lines_of(const std::string &text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

}  // namespace

TEST_CASE("predict: one row per job from --after, scored and flagged as the bundle scores it, and explained", "[predict]") {
    test::TempDir dir;
    const std::string db = test::build_store(dir, 3000, 51);
    const ModelBundle bundle = ModelBundle::load_file(test::train_small_bundle(dir, db, 10));
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    const int64_t after = test::submit_time_between(store, 4, 5);
    std::vector<std::string> keys;
    uint64_t flagged = 0;
    sweep_features(store, [&](const JobRecord &j, const FeatureVector &x) {
        if (j.submit < after) return;
        keys.push_back(j.job_key);
        flagged += bundle.score(x).p_fail >= bundle.threshold();
    });
    REQUIRE(keys.size() > 50);
    REQUIRE(flagged > 0);

    PredictOptions o;
    o.after = after;
    std::ostringstream csv;
    const PredictCounts n = write_predictions(store, bundle, o, csv);
    CHECK(n.jobs == keys.size());
    CHECK(n.flagged == flagged);
    auto rows = lines_of(csv.str());
    REQUIRE(rows.size() == keys.size() + 1);
    CHECK(rows[0].rfind("JobIDRaw,Cluster,User,JobName,Submit,State,p_fail,", 0) == 0);
    CHECK(rows[0].find("message") == std::string::npos);
    for (size_t i = 1; i < rows.size(); ++i) {
        CHECK(rows[i].rfind(keys[i - 1] + ",", 0) == 0);  // submit order, as the sweep
        // no billing weights: every job's cost is in core-hours
        CHECK(rows[i].size() > 11);
        CHECK(rows[i].substr(rows[i].size() - 11) == ",core-hours");
    }

    // --explain-all: every job gets the message a user reads, naming its failure probability.
    o.explain_all = true;
    std::ostringstream explained;
    CHECK(write_predictions(store, bundle, o, explained).jobs == keys.size());
    auto erows = lines_of(explained.str());
    CHECK(erows[0].substr(erows[0].size() - 8) == ",message");
    CHECK_THAT(explained.str(), HasText("most likely"));

    // --explain: only flagged jobs carry a message; the others end in an empty field.
    o.explain_all = false;
    o.explain = true;
    std::ostringstream some;
    write_predictions(store, bundle, o, some);
    size_t empty_messages = 0;
    for (const auto &l : lines_of(some.str())) empty_messages += !l.empty() && l.back() == ',';
    CHECK(empty_messages == keys.size() - flagged);
}

}  // namespace test_predictions
