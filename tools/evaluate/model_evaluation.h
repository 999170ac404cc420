// jfp eval's work: a bundle scored on the finished jobs submitted from a time, as the plugin would have
// scored each at submission, beside the history rules: the metrics, the core-hours caught at the threshold,
// the two waste rankings, the failure-class confusion and the verdict; printed as a table or one JSON object.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/store/history_store.h"
#include "model/jobs/cluster_defaults.h"
#include "model/jobs/outcome.h"
#include "model/scoring/model_bundle.h"
#include "model/scoring/rules.h"
#include "tools/evaluate/metrics.h"
#include "tools/evaluate/verdict.h"
#include "tools/evaluate/waste.h"

namespace jfp {

struct EvalOptions {
    std::string db, model;
    int64_t after = 0;                  // first submit time evaluated (jobs before it are history only)
    double threshold = -1;              // <0: the bundle's
    std::string script_archive;         // non-empty: script features for the jobs it kept
    ClusterDefaults billing;            // slurm.conf's billing weights, pricing the waste rankings
    std::vector<size_t> refused = {10, 100, 500};  // wrongly refused jobs at which the rankings are compared
    bool json = false;
};

struct ModelEvaluation {
    int64_t after = 0;
    double threshold = 0;
    BinaryMetrics model;
    std::array<BinaryMetrics, kNumRules> rules;  // each flagging at 0.5
    CostAtThreshold model_cost;
    std::array<CostAtThreshold, kNumRules> rule_cost;
    std::vector<WasteJob> waste;  // each job's cost and what it burnt, in `unit`
    const char *unit = "core-hours";
    // Which failure, among failed jobs: rows = actual class, columns = predicted class.
    std::array<std::array<uint64_t, kFailureClasses>, kFailureClasses> confusion{};
    uint64_t failed = 0, class_right = 0;  // the confusion's total and diagonal
    BundleVerdict verdict;
};

// Throws when no finished job was submitted at or after o.after.
ModelEvaluation evaluate_model(const HistoryStore &store, const ModelBundle &bundle, const EvalOptions &o);

// jfp eval: opens the store and the model, evaluates, prints.
void run_eval(const EvalOptions &o);

}  // namespace jfp
