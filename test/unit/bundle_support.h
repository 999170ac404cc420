// Unit-test helpers that train or rewrite a model bundle. Apart from test_support.h because they need
// nlohmann/json and the trainer, which cost every test unit that includes them about two seconds to compile.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/scoring/feature_sweep.h"
#include "model/store/history_store.h"
#include "test_support.h"
#include "tools/train/trainer.h"

namespace jfp::test {

// A small bundle trained on the store, written to dir/model.json.
// ignore: features it may not learn from (TrainOptions::ignore_features).
inline std::string train_small_bundle(const TempDir &dir, const std::string &db, int rounds = 40, int seed = 0,
                                      std::vector<std::string> ignore = {}) {
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    TrainOptions opt;
    opt.nthread = 1;
    opt.rounds = rounds;
    opt.seed = seed;
    opt.ignore_features = std::move(ignore);
    opt.kind = "tree";  // the tests of scoring, reasons and reloads are about the tree walk
    TrainSummary s;
    auto bundle = train_bundle(store, opt, s);
    std::string path = dir.file("model.json");
    write_bundle(bundle, path);
    return path;
}

// The bundle as a jfp of feature schema 2 wrote it (its trees must not split past schema 2's features):
// fewer names, num_feature and reference rows to match.
inline nlohmann::json as_schema_2(nlohmann::json b) {
    const int n = feature_count_of_schema(2);
    b["feature_schema"]["version"] = 2;
    auto &names = b["feature_schema"]["names"];
    names.erase(names.begin() + n, names.end());
    for (const char *m : {"failure_model", "class_model"})
        if (b.contains(m) && !b[m].is_null()) b[m]["learner"]["learner_model_param"]["num_feature"] = std::to_string(n);
    for (auto &row : b["reference_rows"]) row["x"].erase(row["x"].begin() + n, row["x"].end());
    return b;
}

// The submit time num/den of the way from the first job the sweep reads to the last: the --after of a test
// that evaluates a bundle on the later part of its store.
inline int64_t submit_time_between(const HistoryStore &store, int64_t num, int64_t den) {
    int64_t first = INT64_MAX, last = INT64_MIN;
    sweep_features(store, [&](const JobRecord &j, const FeatureVector &) {
        first = std::min(first, j.submit);
        last = std::max(last, j.submit);
    });
    return first + (last - first) * num / den;
}

}  // namespace jfp::test
