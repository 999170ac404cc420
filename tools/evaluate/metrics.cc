#include "tools/evaluate/metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace jfp {

namespace {

std::vector<size_t> order_desc(const std::vector<float> &s) {
    std::vector<size_t> idx(s.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return s[a] > s[b]; });
    return idx;
}

}  // namespace

BinaryMetrics evaluate_binary(const std::vector<float> &scores, const std::vector<int> &labels, double threshold) {
    BinaryMetrics m;
    m.n = scores.size();
    m.threshold = threshold;
    for (size_t i = 0; i < m.n; ++i) {
        bool pos = labels[i] != 0;
        m.positives += pos;
        bool flag = scores[i] >= threshold;
        if (flag && pos) ++m.tp;
        else if (flag) ++m.fp;
        else if (pos) ++m.fn;
        else ++m.tn;
    }
    m.precision = m.tp + m.fp ? static_cast<double>(m.tp) / static_cast<double>(m.tp + m.fp) : 0;
    m.recall = m.positives ? static_cast<double>(m.tp) / static_cast<double>(m.positives) : 0;
    m.f1 = m.precision + m.recall > 0 ? 2 * m.precision * m.recall / (m.precision + m.recall) : 0;
    size_t neg = m.n - m.positives;
    if (m.positives == 0 || neg == 0) return m;

    auto idx = order_desc(scores);
    // ROC-AUC by the rank-sum (Mann-Whitney) statistic with average ranks for ties; AP by walking
    // distinct score levels from the top.
    double rank_sum_pos = 0;
    double ap = 0;
    size_t tp = 0, seen = 0;
    size_t i = 0;
    while (i < m.n) {
        size_t j = i;
        size_t pos_here = 0;
        while (j < m.n && scores[idx[j]] == scores[idx[i]]) {
            pos_here += labels[idx[j]] != 0;
            ++j;
        }
        size_t count = j - i;
        // ranks ascending: the top group holds the largest ranks
        double lo_rank = static_cast<double>(m.n - j + 1), hi_rank = static_cast<double>(m.n - i);
        rank_sum_pos += static_cast<double>(pos_here) * (lo_rank + hi_rank) / 2;
        tp += pos_here;
        seen += count;
        if (pos_here > 0)
            ap += (static_cast<double>(pos_here) / static_cast<double>(m.positives)) *
                  (static_cast<double>(tp) / static_cast<double>(seen));
        if (static_cast<double>(tp) >= 0.9 * static_cast<double>(seen))
            m.recall_at_p90 = std::max(m.recall_at_p90, static_cast<double>(tp) / static_cast<double>(m.positives));
        i = j;
    }
    double p = static_cast<double>(m.positives);
    m.roc_auc = (rank_sum_pos - p * (p + 1) / 2) / (p * static_cast<double>(neg));
    m.pr_auc = ap;
    return m;
}

std::vector<OperatingPoint> operating_points(const std::vector<float> &scores, const std::vector<int> &labels) {
    std::vector<OperatingPoint> out;
    auto idx = order_desc(scores);
    size_t tp = 0, fp = 0, i = 0;
    while (i < idx.size()) {
        size_t j = i;
        while (j < idx.size() && scores[idx[j]] == scores[idx[i]]) {
            (labels[idx[j]] ? tp : fp) += 1;
            ++j;
        }
        out.push_back({scores[idx[i]], tp, fp});
        i = j;
    }
    return out;
}

std::vector<float> psi_edges(const std::vector<float> &train) {
    std::vector<float> known_train;
    for (float v : train)
        if (!std::isnan(v)) known_train.push_back(v);
    std::sort(known_train.begin(), known_train.end());
    std::vector<float> edges;
    for (int q = 1; q < 10 && !known_train.empty(); ++q) {
        float e = known_train[known_train.size() * static_cast<size_t>(q) / 10];
        if (edges.empty() || e > edges.back()) edges.push_back(e);
    }
    return edges;
}

// Value bins first, NaN last: the NaN bin's index depends on how many edges there are.
size_t psi_bin(const std::vector<float> &edges, float v) {
    if (std::isnan(v)) return edges.size() + 1;
    return static_cast<size_t>(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin());
}

// Shares floored so an empty bin stays finite.
double psi_of_mass(const std::vector<double> &train, double train_total, const std::vector<double> &live, double live_total) {
    if (train_total <= 0 || live_total <= 0) return 0;
    double out = 0;
    for (size_t b = 0; b < train.size() && b < live.size(); ++b) {
        double e = std::max(kPsiFloor, train[b] / train_total);
        double a = std::max(kPsiFloor, live[b] / live_total);
        out += (a - e) * std::log(a / e);
    }
    return out;
}

// Population stability index of one feature: deciles of the training values (plus a bin for unknown).
double population_stability_index(const std::vector<float> &train, const std::vector<float> &live) {
    if (train.empty() || live.empty()) return 0;
    const auto edges = psi_edges(train);
    std::vector<double> t(edges.size() + 2, 0), l(edges.size() + 2, 0);
    for (float v : train) t[psi_bin(edges, v)] += 1;
    for (float v : live) l[psi_bin(edges, v)] += 1;
    return psi_of_mass(t, static_cast<double>(train.size()), l, static_cast<double>(live.size()));
}

CostAtThreshold cost_at(const std::vector<float> &scores, const std::vector<int> &labels,
                        const std::vector<double> &core_hours, double threshold) {
    CostAtThreshold c;
    for (size_t i = 0; i < scores.size(); ++i) {
        double h = i < core_hours.size() && core_hours[i] == core_hours[i] ? core_hours[i] : 0;  // NaN: unknown
        bool flag = scores[i] >= threshold;
        if (labels[i]) {
            c.failed_core_hours += h;
            if (flag) {
                ++c.failed_caught;
                c.failed_caught_core_hours += h;
            }
        } else if (flag) {
            ++c.good_flagged;
            c.good_flagged_core_hours += h;
        }
    }
    return c;
}

double wilson_lower(double hits, double n) {
    if (n <= 0) return 0;
    const double z = 1.6448536269514722;  // the standard normal's 95th percentile
    const double p = hits / n, z2 = z * z;
    const double centre = p + z2 / (2 * n), spread = z * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
    return std::max(0.0, (centre - spread) / (1 + z2 / n));
}

ThresholdChoice choose_threshold(const std::vector<float> &scores, const std::vector<int> &labels,
                                 double target_precision, size_t min_true_positives, bool never_all) {
    ThresholdChoice best_f1;
    ThresholdChoice target;
    size_t positives = 0;
    for (int l : labels) positives += l != 0;
    if (positives == 0 || scores.empty()) return best_f1;
    auto idx = order_desc(scores);
    size_t tp = 0, fp = 0, i = 0;
    double best_f1_value = -1;
    // Counts per time segment (rows come in time order): the bound must hold in each, not only overall.
    const size_t segments = std::max<size_t>(1, kPrecisionSegments);
    std::vector<size_t> stp(segments, 0), sfp(segments, 0);
    while (i < idx.size()) {
        size_t j = i;
        while (j < idx.size() && scores[idx[j]] == scores[idx[i]]) {
            (labels[idx[j]] ? tp : fp) += 1;
            size_t seg = idx[j] * segments / idx.size();
            (labels[idx[j]] ? stp[seg] : sfp[seg]) += 1;
            ++j;
        }
        bool segs_ok = true;
        for (size_t k = 0; k < segments; ++k) {
            const double n = static_cast<double>(stp[k] + sfp[k]);
            if (n > 0 && wilson_lower(static_cast<double>(stp[k]), n) < target_precision) segs_ok = false;
        }
        double prec = static_cast<double>(tp) / static_cast<double>(tp + fp);
        double rec = static_cast<double>(tp) / static_cast<double>(positives);
        double f1 = prec + rec > 0 ? 2 * prec * rec / (prec + rec) : 0;
        double thr = scores[idx[i]];
        if (never_all && j == idx.size()) break;  // this group is the lowest score: flagging it flags every job
        const double lower = wilson_lower(static_cast<double>(tp), static_cast<double>(tp + fp));
        if (f1 > best_f1_value) {
            best_f1_value = f1;
            best_f1 = {thr, prec, lower, rec, false};
        }
        if (lower >= target_precision && tp >= min_true_positives && segs_ok) target = {thr, prec, lower, rec, true};
        i = j;
    }
    return target.target_reached ? target : best_f1;
}

}  // namespace jfp
