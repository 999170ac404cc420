// Tree model or rule: jfp train measures every history rule beside the tree model on the same rows (the
// validation window when it has enough failures, else the whole training window) and ships the tree only
// when it ranks failures better than the best rule. The record of that comparison goes into the bundle,
// where jfp publish and jfp eval read it back.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/scoring/rules.h"
#include "tools/evaluate/metrics.h"
#include "tools/evaluate/verdict.h"

namespace jfp {

// Fewer failed jobs than this in the whole training window: not even the rules bundle is written.
inline constexpr size_t kMinFailuresForRules = 20;
// A tree model needs this many failures among its training rows and its validation rows.
inline constexpr size_t kMinTreeTrainFailures = 20;
inline constexpr size_t kMinValidationFailures = 5;
// And this many days between its first and last training row. Measured: trained on the first 1.3 days of
// a synthetic workload (4,339 jobs, 332 failed), the tree model won on validation (PR-AUC 0.245 vs 0.192)
// and lost to the narrowest-history rule on the 13 days after (0.224-0.235 vs 0.244); jobs after a short
// window have hours-since values and weekdays it never saw.
inline constexpr int kMinTreeTrainDays = 7;

// "12 jobs, 3 failed": a count of rows as the trainer's messages say it.
std::string jobs_failed_text(uint64_t jobs, uint64_t failed);

// Why no tree model can be trained on these rows (kind: --kind; train_days: the training rows' span);
// empty when one can.
std::string why_no_tree(const std::string &kind, uint64_t train_rows, uint64_t train_failures, uint64_t val_rows,
                        uint64_t val_failures, double train_days);

struct ModelComparison {
    std::string rows_name;  // "validation" or "training window"
    size_t rows = 0, failures = 0;
    std::optional<BinaryMetrics> tree;  // unset: no tree model was trained
    std::string no_tree_reason;         // why not, when unset
    std::array<BinaryMetrics, kNumRules> rules{};
    Rule best_rule = Rule::MostSpecificRecentRate;
    bool tree_chosen = false;
    std::string verdict;  // one sentence: which was chosen and why, with both figures

    nlohmann::json to_json() const;
};

// scores[r][i]: rule r's score of row i. tree_scores empty when no tree was trained (no_tree_reason says
// why). forced: "tree" or "rules" overrides the choice (the verdict still gives the figures).
// all_rule_scores/all_labels, when given, are every labeled row before the cutoff (training and validation
// windows): when a rule ships, it is chosen and recorded on those. A rule has nothing fitted, so no row is
// "seen", and the whole window tells rules apart where a few days of validation do not (measured: on a
// synthetic workload the validation window put 'user+stem' 0.002 above 'narrowest', which the whole window
// and the 2,359 jobs after both ranked first, 0.282 against 0.232).
ModelComparison compare_with_rules(const std::array<std::vector<float>, kNumRules> &rule_scores,
                                   const std::vector<float> &tree_scores, const std::vector<int> &labels,
                                   const std::string &rows_name, const std::string &no_tree_reason,
                                   const std::string &forced,
                                   const std::array<std::vector<float>, kNumRules> *all_rule_scores = nullptr,
                                   const std::vector<int> *all_labels = nullptr);

}  // namespace jfp
