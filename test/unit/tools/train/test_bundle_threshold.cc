// One threshold rule and one bundle writer for both trainers: a bundle jfp-train-dask drafts is finished
// by jfp train's own rule (tools/train/bundle_threshold.h).
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "catch.h"
#include "bundle_support.h"
#include "test_support.h"
#include "tools/train/bundle_threshold.h"

namespace test_bundle_threshold {

using namespace jfp;

TEST_CASE("a drafted bundle gets jfp train's threshold, choice and metrics", "[bundle]") {
    test::TempDir dir;
    const std::string db = test::build_store(dir, 3000, 21);
    std::ifstream in(test::train_small_bundle(dir, db, 10));
    nlohmann::json trained = nlohmann::json::parse(in);
    nlohmann::json draft = trained;
    draft.erase("threshold");
    draft.erase("validation_metrics");
    draft["target_precision"] = 0.6;
    draft["threshold_choice"] = {{"source", "validation"}};
    // Scores in time order: the later half's failures score lower, so the rule's halves matter.
    std::vector<float> scores;
    std::vector<int> labels;
    for (int i = 0; i < 400; ++i) {
        labels.push_back(i % 4 == 0);
        scores.push_back(static_cast<float>((i % 4 == 0 ? 0.6 : 0.2) + (i % 7) * 0.01 - (i >= 200 ? 0.05 : 0)));
    }
    const nlohmann::json b = finish_drafted_bundle(draft, scores, labels);
    const ThresholdChoice want = choose_threshold(scores, labels, 0.6, 5, false);
    const BinaryMetrics m = evaluate_binary(scores, labels, want.threshold);
    CHECK(b["threshold"].get<double>() == want.threshold);
    CHECK(b["threshold_choice"]["source"] == "validation");
    CHECK(b["threshold_choice"]["target_reached"].get<bool>() == want.target_reached);
    CHECK(b["threshold_choice"]["precision_lower_bound"].get<double>() == want.precision_lower);
    CHECK(b["validation_metrics"]["pr_auc"].get<double>() == m.pr_auc);
    CHECK(b["validation_metrics"]["rows"].get<size_t>() == 400);
    CHECK(b["failure_model"] == trained["failure_model"]);

    nlohmann::json no_target = draft;
    no_target.erase("target_precision");
    CHECK_THROWS_WITH(finish_drafted_bundle(no_target, scores, labels), HasText("target_precision"));
    CHECK_THROWS_WITH(finish_drafted_bundle(draft, {}, {}), HasText("no scored rows"));
}

TEST_CASE("scores are read as score,label lines; a bad line is named", "[bundle]") {
    test::TempDir dir;
    test::write_file(dir.file("s.csv"), "score,label\n0.125,1\n1e-05,0\n0.999999881,0\n");
    std::vector<float> s;
    std::vector<int> l;
    read_scores_csv(dir.file("s.csv"), s, l);
    CHECK(s == std::vector<float>{0.125f, 1e-05f, 0.999999881f});
    CHECK(l == std::vector<int>{1, 0, 0});
    test::write_file(dir.file("bad.csv"), "score,label\n0.5,1\n0.5,2\n");
    CHECK_THROWS_WITH(read_scores_csv(dir.file("bad.csv"), s, l), HasText("bad.csv line 3: expected score,label"));
}

TEST_CASE("finish-bundle's files: the draft and the scores read, the finished bundle written and loadable", "[bundle]") {
    test::TempDir dir;
    const std::string db = test::build_store(dir, 3000, 22);
    std::ifstream in(test::train_small_bundle(dir, db, 10));
    nlohmann::json draft = nlohmann::json::parse(in);
    draft.erase("threshold");
    draft.erase("validation_metrics");
    draft["target_precision"] = 0.6;
    draft["threshold_choice"] = {{"source", "validation"}};
    test::write_file(dir.file("draft.json"), draft.dump());
    std::string csv = "score,label\n";
    std::vector<float> scores;
    std::vector<int> labels;
    for (int i = 0; i < 200; ++i) {
        labels.push_back(i % 3 == 0);
        scores.push_back(i % 3 == 0 ? 0.7f : 0.1f + static_cast<float>(i % 5) * 0.05f);
        csv += std::to_string(scores.back()) + "," + std::to_string(labels.back()) + "\n";
    }
    test::write_file(dir.file("scores.csv"), csv);
    const nlohmann::json b = finish_bundle_files(dir.file("draft.json"), dir.file("scores.csv"), dir.file("out.json"));
    const ModelBundle loaded = ModelBundle::load_file(dir.file("out.json"));
    CHECK(loaded.model_id() == b["model_id"].get<std::string>());
    CHECK(loaded.threshold() == Approx(b["threshold"].get<double>()));
    CHECK(b["validation_metrics"]["rows"].get<size_t>() == 200);

    test::write_file(dir.file("broken.json"), "{");
    CHECK_THROWS_WITH(finish_bundle_files(dir.file("broken.json"), dir.file("scores.csv"), dir.file("x.json")),
                      HasText("broken.json is not JSON"));
    CHECK_THROWS_WITH(finish_bundle_files(dir.file("missing.json"), dir.file("scores.csv"), dir.file("x.json")),
                      HasText("cannot read"));
}

}  // namespace test_bundle_threshold
