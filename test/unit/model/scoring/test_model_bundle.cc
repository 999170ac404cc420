// ModelBundle: what the plugin learns of a bundle as it loads it.
#include <fstream>

#include <nlohmann/json.hpp>

#include "catch.h"
#include "model/scoring/features.h"
#include "model/scoring/model_bundle.h"
#include "bundle_support.h"
#include "test_support.h"

namespace test_model_bundle {

using namespace jfp;

TEST_CASE("model bundle: knows whether any split uses a script feature") {
    test::TempDir dir;
    std::string db = test::build_store(dir, 6000, 3);
    auto bundle = ModelBundle::load_file(test::train_small_bundle(dir, db));
    // Trained from sacct exports, which carry no scripts: no split can test a script feature.
    CHECK_FALSE(bundle.uses_script_features());
    int used = 0;
    for (int f = 0; f < kNumFeatures; ++f) used += bundle.failure_model().uses_feature(f);
    CHECK(used > 3);
    CHECK(bundle.failure_model().uses_feature(F_un_streak) + bundle.failure_model().uses_feature(F_un_fail_rate) +
              bundle.failure_model().uses_feature(F_un_recent_fail_rate) > 0);

    // The same bundle with one split moved onto a script feature: now the plugin must scan on the spot.
    std::ifstream in(test::train_small_bundle(dir, db));
    nlohmann::json j = nlohmann::json::parse(in);
    auto &tree = j["failure_model"]["learner"]["gradient_booster"]["model"]["trees"][0];
    size_t split = 0;
    while (tree["left_children"][split].get<int>() < 0) ++split;  // the first node that is a split
    tree["split_indices"][split] = static_cast<int>(F_script_srun);
    j.erase("reference_rows");  // the moved split changes scores; XGBoost's stored ones no longer apply
    auto moved = ModelBundle::from_json(j, "moved.json");
    CHECK(moved.failure_model().uses_feature(F_script_srun));
    CHECK(moved.uses_script_features());
}

}  // namespace test_model_bundle
