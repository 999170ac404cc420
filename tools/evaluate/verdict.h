// The one line an admin reads first: is this model better than the obvious rules on these jobs, did its
// threshold reach its target precision, and so which modes it is fit for. jfp eval and jfp report open
// with it; jfp publish refuses a bundle it calls unfit.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/store/history_store.h"

#include "model/scoring/model_bundle.h"
#include "model/scoring/rules.h"
#include "tools/evaluate/metrics.h"

namespace jfp {

inline constexpr double kVerdictTie = 0.0005;

struct Verdict {
    bool fit = false;  // ranks better than chance, on failures and completions, and at least as well as the best rule (PR-AUC)
    bool target_reached = false;
    Rule best_rule = Rule::MostSpecificRecentRate;
    double model_pr_auc = 0, rule_pr_auc = 0;
    std::string modes;  // what it is fit for, in words
    std::string line;   // the whole verdict, one sentence
};

// The best rule by PR-AUC (ties: the simpler rule, earlier in kRules).
Rule best_rule(const std::array<BinaryMetrics, kNumRules> &m);

// model and rules measured on the same jobs (where: "these 5,905 jobs", "its validation window").
Verdict judge(const ModelBundle &bundle, const BinaryMetrics &model, const std::array<BinaryMetrics, kNumRules> &rules,
              const std::string &where);

// The model and every rule measured on the same jobs.
struct RuleComparison {
    size_t jobs = 0, failures = 0;
    BinaryMetrics model;
    std::array<BinaryMetrics, kNumRules> rules{};
};

// A candidate bundle and the model installed, on the same jobs.
struct ModelVsInstalled {
    size_t jobs = 0, failures = 0;
    BinaryMetrics candidate, installed;
};

// The store's finished jobs submitted at or after `after`, scored as the plugin would have by the bundle,
// by every rule and, when given, by the model installed: one sweep of the store for jfp publish's gates.
struct ScoredJobs {
    int64_t after = 0;  // the jobs submitted at or after this
    std::vector<int64_t> submit;
    std::vector<int> labels;
    std::vector<float> model, installed;
    std::array<std::vector<float>, kNumRules> rules;
};
ScoredJobs score_jobs_after(const HistoryStore &store, const ModelBundle &bundle, int64_t after,
                            const ModelBundle *installed = nullptr);

// The bundle beside every rule on all the jobs scored.
RuleComparison rules_comparison(const ScoredJobs &jobs, const ModelBundle &bundle);

// The bundle beside the model installed (scored by score_jobs_after) on the jobs submitted at or after
// `after`: the later of the two training cutoffs, jobs neither learned from. Throws std::logic_error when
// the jobs were scored without the installed model or from later than `after`.
ModelVsInstalled compare_with_installed(const ScoredJobs &jobs, const ModelBundle &bundle, const ModelBundle &installed,
                                        int64_t after);

// The bundle's training cutoff (jfp train --before), when it has one: the jobs after it are unseen.
std::optional<int64_t> training_cutoff(const ModelBundle &bundle);

// What jfp train measured on the bundle's validation (or training) window; nothing when the bundle records
// no comparison (made by a jfp before rules bundles).
std::optional<RuleComparison> recorded_comparison(const ModelBundle &bundle);

// The first submit time of jobs the bundle never learned from: its training cutoff, else (trained on all the
// history it had) the second after the last job of its validation window; nothing when it records neither.
std::optional<int64_t> unseen_from(const ModelBundle &bundle);

// Fewer failures than this among jobs the bundle never saw, and its verdict is jfp train's record.
inline constexpr size_t kMinJudgedFailures = 20;

// One verdict per bundle, wherever it is shown (jfp eval, jfp report, jfp publish): on the jobs scored from
// `after` when the bundle never saw them and they hold at least min_failures failures; else on jfp train's
// record of its validation window (note says why), when it has one.
struct BundleVerdict {
    Verdict verdict;
    bool from_record = false;
    std::string note;  // why the verdict is not on these jobs; empty when it is
};
BundleVerdict verdict_for(const ModelBundle &bundle, const BinaryMetrics &model,
                          const std::array<BinaryMetrics, kNumRules> &rules, int64_t after,
                          size_t min_failures = kMinJudgedFailures);

}  // namespace jfp
