// Trains the failure model and the failure-class model from a history store with XGBoost's C API and
// assembles the model bundle. Splits are by time: the model trained "at" a cutoff sees only jobs that
// ended before it; early stopping and the threshold use the latest part of that window.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "model/history_store.h"
#include "metrics.h"

namespace jfp {

struct TrainOptions {
    std::optional<int64_t> before;          // cutoff (naive local); unset: all history
    std::optional<double> train_fraction;   // or: the earliest fraction of labeled jobs
    double validation_fraction = 0.15;      // latest part of the training window
    int rounds = 400;
    int early_stopping_rounds = 40;
    std::string stop_metric = "logloss";  // validation metric for early stopping: logloss, aucpr or auc
    int max_depth = 6;
    double eta = 0.1;
    double subsample = 0.8;
    double colsample = 0.8;
    double min_child_weight = 1;
    double scale_pos_weight = 1;  // >1 up-weights failures; 0 = neg/pos
    int nthread = 0;              // 0: all cores
    int seed = 0;
    double target_precision = 0.9;
    int class_rounds = 150;
    int class_max_depth = 4;
    size_t reference_rows = 32;
    bool progress = false;
    std::string feature_log;  // the plugin's feature log: prefer its vectors where a job carries a token
    std::string script_archive;  // the plugin's script archive: script features for the jobs it kept
};

struct TrainSummary {
    uint64_t train_rows = 0, train_failures = 0, val_rows = 0, val_failures = 0;
    int best_iteration = 0;
    BinaryMetrics validation;
    ThresholdChoice threshold;
    bool class_model = false;
    std::string model_id;
    uint64_t logged_vectors = 0;  // rows whose features came from the plugin's log
    uint64_t archived_scripts = 0;  // jobs whose script features came from the script archive
    bool uses_script_features = false;  // the failure model splits on a script feature
};

// Throws std::runtime_error with what to do when there is too little data to train.
nlohmann::json train_bundle(const HistoryStore &store, const TrainOptions &opt, TrainSummary &summary);

// Writes a bundle atomically (temporary file, fsync, rename), mode 0644: the plugin never sees half a file.
void write_bundle(const nlohmann::json &bundle, const std::string &path);

}  // namespace jfp
