#include "tools/monitor/capped_drift.h"

#include <algorithm>

#include "tools/evaluate/metrics.h"
#include "tools/monitor/user_capped.h"

namespace jfp {

CappedDrift::CappedDrift(const std::vector<std::vector<float>> &train, const std::vector<uint64_t> &train_users,
                         std::vector<int> features, double cap)
    : features_(std::move(features)), cap_(cap) {
    const size_t nf = features_.size();
    train_plain_.assign(nf * kPsiMaxBins, 0);
    train_capped_.assign(nf * kPsiMaxBins, 0);
    std::unordered_map<uint64_t, double> rows_of;
    for (uint64_t u : train_users) rows_of[u] += 1;
    std::vector<double> w(train_users.size());
    for (size_t r = 0; r < train_users.size(); ++r) {
        w[r] = user_weight(rows_of[train_users[r]], cap_);
        train_mass_ += w[r];
    }
    train_rows_ = static_cast<double>(train_users.size());
    for (size_t i = 0; i < nf; ++i) {
        const auto &values = train.at(static_cast<size_t>(features_[i]));
        edges_.push_back(psi_edges(values));
        for (size_t r = 0; r < values.size() && r < w.size(); ++r) {
            const size_t b = i * kPsiMaxBins + psi_bin(edges_[i], values[r]);
            train_plain_[b] += 1;
            train_capped_[b] += w[r];
        }
    }
}

void CappedDrift::add_live(uint64_t user, const float *x) {
    Counts &c = live_[user];
    if (c.bins.empty()) c.bins.assign(features_.size() * kPsiMaxBins, 0);
    ++c.jobs;
    for (size_t i = 0; i < features_.size(); ++i)
        c.bins[i * kPsiMaxBins + psi_bin(edges_[i], x[features_[i]])] += 1;
}

std::vector<FeatureDrift> CappedDrift::measure() const {
    std::vector<FeatureDrift> out;
    if (train_rows_ == 0 || live_.empty()) return out;
    const size_t nf = features_.size();
    std::vector<double> plain(nf * kPsiMaxBins, 0), capped(nf * kPsiMaxBins, 0);
    double jobs = 0, mass = 0;
    for (const auto &[user, c] : live_) {
        const double w = user_weight(static_cast<double>(c.jobs), cap_);
        jobs += static_cast<double>(c.jobs);
        mass += w * static_cast<double>(c.jobs);
        for (size_t b = 0; b < c.bins.size(); ++b) {
            plain[b] += c.bins[b];
            capped[b] += w * c.bins[b];
        }
    }
    auto slice = [](const std::vector<double> &v, size_t i) {
        return std::vector<double>(v.begin() + static_cast<long>(i * kPsiMaxBins),
                                   v.begin() + static_cast<long>((i + 1) * kPsiMaxBins));
    };
    for (size_t i = 0; i < nf; ++i) {
        FeatureDrift d;
        d.feature = features_[i];
        const auto tp = slice(train_plain_, i), tc = slice(train_capped_, i), cc = slice(capped, i);
        d.psi = psi_of_mass(tp, train_rows_, slice(plain, i), jobs);
        d.capped = psi_of_mass(tc, train_mass_, cc, mass);
        if (live_.size() > 1)
            for (const auto &[user, c] : live_) {
                const double w = user_weight(static_cast<double>(c.jobs), cap_);
                std::vector<double> rest = cc;
                // Clamped: the subtraction may leave a rounding error below 0.
                for (size_t b = 0; b < kPsiMaxBins; ++b) rest[b] = std::max(0.0, rest[b] - w * c.bins[i * kPsiMaxBins + b]);
                const double v = psi_of_mass(tc, train_mass_, rest, mass - w * static_cast<double>(c.jobs));
                d.lowest_without_one = d.lowest_without_one < 0 ? v : std::min(d.lowest_without_one, v);
            }
        out.push_back(d);
    }
    std::sort(out.begin(), out.end(), [](const FeatureDrift &a, const FeatureDrift &b) {
        return a.psi != b.psi ? a.psi > b.psi : a.feature > b.feature;
    });
    return out;
}

}  // namespace jfp
