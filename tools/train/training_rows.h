// Which jobs a model learns from and which it is validated on, and their features: one definition for
// every trainer (jfp train in process; jfp export-features for a distributed engine), so a model trained
// anywhere saw the same rows. Splits are by time: only jobs that ended before the cutoff, validation the
// latest part of that window, training rows only jobs that ended before validation starts.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/store/history_store.h"
#include "model/jobs/cluster_defaults.h"
#include "model/jobs/job_record.h"
#include "model/scoring/features.h"
#include "model/scoring/rules.h"
#include "tools/evaluate/waste.h"

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
    std::string kind = "auto";  // auto: the tree model if it beats the best rule; tree; rules
    int class_rounds = 150;
    int class_max_depth = 4;
    size_t reference_rows = 32;
    bool progress = false;
    std::string feature_log;  // the plugin's feature log: prefer its vectors where a job carries a token
    std::string script_archive;  // the plugin's script archive: script features for the jobs it kept
    // How jobs are priced for the waste budget (slurm.conf's TRESBillingWeights; empty: by CPU), and the
    // site's limit on completed jobs the budget may refuse a week on validation.
    ClusterDefaults billing;
    double refused_per_week = 10;
    // Sample weights of the failure model's rows: none, cost (rows weighted by what they ask for, over the
    // median) or log-cost (by log(1 + cost), over its mean): a model that ranks costly failures first.
    std::string weight = "none";
    // Features the model may not learn from (their columns are left unknown in training): one a site knows
    // to drift, or to stand in for an earlier schema's bundle in tests.
    std::vector<std::string> ignore_features;
};

struct TrainingWindow {
    std::optional<int64_t> cutoff;  // rows submitted and ended before it; unset: all history
    int64_t validation_start = 0;   // submitted at or after it: validation; ended before it: training
};

enum class Split { Train, Validation };
const char *split_name(Split s);

// Throws std::runtime_error saying what to do when the window holds too few finished jobs.
TrainingWindow choose_training_window(const HistoryStore &store, const TrainOptions &opt);

struct SweepSources {
    uint64_t logged_vectors = 0;    // rows whose features came from the plugin's feature log
    uint64_t archived_scripts = 0;  // jobs whose script features came from the script archive
    // Finished jobs of the window in neither split: submitted before validation starts and ended after it
    // (a training row must be over before the jobs it is validated on are submitted).
    uint64_t straddling = 0, straddling_failed = 0;
    double seconds = 0;
};

// row(job, features, split) for every labeled job of the window, in submit order.
SweepSources sweep_training_rows(const HistoryStore &store, const TrainOptions &opt, const TrainingWindow &window,
                                 const std::function<void(const JobRecord &, const FeatureVector &, Split)> &row);

// The labeled rows of one split as jfp train holds them: the features row-major (XGBoost's dense matrix),
// each row's label and failure class, each rule's score and each row's cost.
struct RowSet {
    std::vector<float> x;  // row-major
    std::vector<float> label;
    std::vector<int> cls;  // failure class index, -1 for COMPLETED
    std::array<std::vector<float>, kNumRules> rule;  // each rule's score of each row
    std::vector<WasteJob> waste;  // each row's cost and what it burnt (p set once scored)
    int64_t first_submit = 0, last_submit = 0;
    size_t size() const { return label.size(); }
    void add(const FeatureVector &f, const JobRecord &j, const BillingRule &billing);
    size_t positives() const;
    std::vector<int> labels() const;
    // The failed rows alone, labelled by their failure class: the class model's rows (features, label, class).
    RowSet failures() const;
};

// Each row's weight by its cost (TrainOptions::weight: "cost" or "log-cost"), mean 1 over known costs;
// a row without a bounded cost weighs as the median row.
std::vector<float> cost_weights(const std::vector<WasteJob> &rows, const std::string &how);

// XGBoost's monotone_constraints: more past failure never lowers the risk.
std::string monotone_constraints();

}  // namespace jfp
