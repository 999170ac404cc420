// Trains the failure model and the failure-class model from a history store with XGBoost's C API and
// assembles the model bundle. Splits are by time: the model trained "at" a cutoff sees only jobs that
// ended before it; early stopping and the threshold use the latest part of that window.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

#include "model/store/history_store.h"
#include "tools/evaluate/metrics.h"
#include "tools/evaluate/waste.h"
#include "tools/train/model_choice.h"
#include "tools/train/training_rows.h"

namespace jfp {

struct TrainSummary {
    uint64_t train_rows = 0, train_failures = 0, val_rows = 0, val_failures = 0;
    int best_iteration = 0;
    BinaryMetrics validation;
    ThresholdChoice threshold;
    bool class_model = false;
    std::string class_model_note;  // why there is none
    std::string model_id;
    uint64_t logged_vectors = 0;  // rows whose features came from the plugin's log
    uint64_t archived_scripts = 0;  // jobs whose script features came from the script archive
    bool uses_script_features = false;  // the failure model splits on a script feature
    std::string kind;              // "tree" or "rules": what the bundle holds
    ModelComparison comparison;    // the tree model and the rules on the same rows
    BudgetChoice waste;            // decide_by = waste's budget, chosen on the same rows as the threshold
    std::string waste_unit = "core-hours";
};

// Writes a tree model only when it ranks failures better than the best history rule on validation (else the
// rules bundle), and nothing when the window holds fewer than kMinFailuresForRules failures. Throws
// std::runtime_error with the numbers and what to do when there is too little data.
nlohmann::json train_bundle(const HistoryStore &store, const TrainOptions &opt, TrainSummary &summary);

// Writes a bundle atomically (temporary file, fsync, rename), mode 0644: the plugin never sees half a file.
void write_bundle(const nlohmann::json &bundle, const std::string &path);

}  // namespace jfp
