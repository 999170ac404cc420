// jfp predict's work: every job submitted from a time scored exactly as the plugin would have scored it
// at its submission, with its classes, its cost in the site's units and, when asked, the message a user
// would have read; written as CSV.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "model/store/history_store.h"
#include "model/jobs/cluster_defaults.h"
#include "model/scoring/model_bundle.h"

namespace jfp {

struct PredictOptions {
    std::string db, model, output, script_archive;
    int64_t after = 0;        // first submit time scored
    ClusterDefaults billing;  // slurm.conf's billing weights, pricing each job's cost
    bool explain = false;      // messages for flagged jobs
    bool explain_all = false;  // for every job, as if it were flagged (what the message replay checks)
};

struct PredictCounts {
    uint64_t jobs = 0, flagged = 0;  // scored; at or above the bundle's threshold
};

// Writes the CSV (header and one row per job) to `out`.
PredictCounts write_predictions(const HistoryStore &store, const ModelBundle &bundle, const PredictOptions &o,
                                std::ostream &out);

// jfp predict: opens the store and the model, writes o.output, prints the one-line summary.
void run_predict(const PredictOptions &o);

}  // namespace jfp
