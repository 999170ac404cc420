// jfp parity's work: the features the plugin computed at submission (its feature log) against the ones the
// trainer rebuilds from the history store, feature by feature, over every job that carries a logged token.
#pragma once

#include <array>
#include <climits>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "model/store/history_store.h"
#include "model/scoring/feature_log.h"
#include "model/scoring/features.h"

namespace jfp {

struct ParityOptions {
    std::string db, feature_log, script_archive;
    bool json = false;
    double tolerance = 1e-3;  // relative
    int64_t after = INT64_MIN, before = INT64_MAX;  // submit times compared: [after, before)
};

struct FeatureParity {
    uint64_t jobs = 0;  // jobs whose token the log holds
    std::array<uint64_t, kNumFeatures> agree{}, differ{};
    std::array<std::string, kNumFeatures> example;  // the first job that differed, with both values
};

// Known at submission alone (the module index the plugin read then is not kept): never compared.
bool plugin_only_feature(int f);

// logged: the feature log as read_feature_log gives it. Throws when no job in the store carries one of its tokens.
FeatureParity compare_logged_features(const HistoryStore &store,
                                      const std::unordered_map<std::string, LoggedFeatures> &logged,
                                      const ParityOptions &o);

// jfp parity: reads the log and the store, compares, prints.
void run_parity(const ParityOptions &o);

}  // namespace jfp
