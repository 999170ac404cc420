// Metrics that mean something at a 5-10% failure rate: ranking quality (ROC-AUC, PR-AUC as average
// precision) and precision/recall/F1 at the operating threshold. No accuracy: predicting "completes"
// for every job scores 92%.
#pragma once

#include <cstddef>
#include <vector>

namespace jfp {

struct BinaryMetrics {
    size_t n = 0;
    size_t positives = 0;
    double roc_auc = 0;
    double pr_auc = 0;  // average precision
    double recall_at_p90 = 0;  // the highest recall at any threshold whose precision is at least 0.9
    double threshold = 0;
    size_t tp = 0, fp = 0, fn = 0, tn = 0;
    double precision = 0, recall = 0, f1 = 0;
    size_t flagged() const { return tp + fp; }
};

// scores: higher = more likely to fail; labels: 1 = failed. Ties are handled exactly (ROC by average
// ranks, AP by treating tied scores as one threshold).
BinaryMetrics evaluate_binary(const std::vector<float> &scores, const std::vector<int> &labels, double threshold);

// What acting at a threshold would have meant in machine time: the failed jobs it catches and the core-hours
// they burnt (waste a rejection would have saved), the good jobs it flags and theirs (good work it would
// have blocked). Jobs with unknown core-hours count as jobs, not hours.
struct CostAtThreshold {
    size_t failed_caught = 0, good_flagged = 0;
    double failed_core_hours = 0;         // all failed jobs
    double failed_caught_core_hours = 0;  // failed and flagged
    double good_flagged_core_hours = 0;   // completed and flagged
};

CostAtThreshold cost_at(const std::vector<float> &scores, const std::vector<int> &labels,
                        const std::vector<double> &core_hours, double threshold);

// Cumulative counts at each distinct score, from the highest: flagging every job scored >= threshold
// gives tp true and fp false positives. The points of ROC and precision-recall curves.
struct OperatingPoint {
    double threshold;
    size_t tp, fp;
};
std::vector<OperatingPoint> operating_points(const std::vector<float> &scores, const std::vector<int> &labels);

// How far live values of a feature moved from its training values: deciles of the training values plus a
// bin for unknown (NaN); sum over bins of (live - train) * ln(live / train), shares floored at 1e-4.
// Rule of thumb: < 0.1 stable, 0.1-0.25 some shift, > 0.25 a shift worth acting on. 0 when either is empty.
double population_stability_index(const std::vector<float> &train, const std::vector<float> &live);

// The same index over weighted counts (jfp monitor's per-user capped drift): the bins' edges from the
// training values, a value's bin, and the index from the mass in each bin and each side's total.
constexpr size_t kPsiMaxBins = 11;  // at most 9 decile edges: 10 value bins, then NaN
constexpr double kPsiFloor = 1e-4;
std::vector<float> psi_edges(const std::vector<float> &train);
size_t psi_bin(const std::vector<float> &edges, float v);
double psi_of_mass(const std::vector<double> &train, double train_total, const std::vector<double> &live, double live_total);

struct ThresholdChoice {
    double threshold = 0.5;
    double precision = 0;        // on the rows it was chosen on
    double precision_lower = 0;  // its one-sided lower confidence bound (kPrecisionConfidence, Wilson)
    double recall = 0;
    bool target_reached = false;  // the bound, not the point estimate, reached the target
};

// A point estimate of precision chosen on one validation window overstates what later jobs get (issue 35:
// 0.910 claimed, 0.839 realized on CTC-SP2). The threshold is chosen on a lower confidence bound instead.
constexpr double kPrecisionConfidence = 0.95;
// ... and the bound must hold in each half of the window (its rows in time order), so that a threshold
// whose precision fell during the window does not claim the target on its average (CTC-SP2 at 70%: 0.839
// realized with the bound on the whole window; not claimed with it on each half).
constexpr size_t kPrecisionSegments = 2;
// Wilson score interval's lower end for `hits` of `n` at one-sided confidence kPrecisionConfidence; 0 for n 0.
double wilson_lower(double hits, double n);

// The lowest threshold whose precision's lower bound (wilson_lower) reaches target_precision on the whole
// window and on each of its kPrecisionSegments time segments (scores and labels in time order), so that
// recall is as high as it can be there, requiring at least min_true_positives flagged failures. When no
// threshold reaches the target, the threshold with the best F1 is returned and target_reached is false.
// never_all: never the lowest score present, which would flag every job (a rule scores every job without
// history 0: at a high failure rate "flag everything" can have the best F1).
ThresholdChoice choose_threshold(const std::vector<float> &scores, const std::vector<int> &labels,
                                 double target_precision, size_t min_true_positives = 5, bool never_all = false);

}  // namespace jfp
