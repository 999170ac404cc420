// Drift (PSI) of features from a training window to live jobs, plain and with each user's jobs capped
// (user_capped.h) on both sides: the training window weighed as the live jobs are, so the capped figure
// compares like with like. Also the capped PSI with each live user left out in turn, which jfp monitor's
// drift alert needs to stay past its limit: one user's jobs alone cannot raise it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace jfp {

struct FeatureDrift {
    int feature = 0;
    double psi = 0;                     // plain: every job counts once
    double capped = 0;                  // each user's jobs capped
    double lowest_without_one = -1;     // the capped PSI with one live user left out, its lowest (-1: one user)
};

class CappedDrift {
public:
    // train[f]: feature f's training values, one per row; train_users: each row's user. Only `features`
    // are measured; a row's values are read at those indices.
    CappedDrift(const std::vector<std::vector<float>> &train, const std::vector<uint64_t> &train_users,
                std::vector<int> features, double cap);
    // One live job: its user and its values, indexed by feature.
    void add_live(uint64_t user, const float *x);
    size_t live_users() const { return live_.size(); }
    // Every measured feature, largest plain PSI first; empty without training rows or live jobs.
    std::vector<FeatureDrift> measure() const;

private:
    struct Counts {
        uint64_t jobs = 0;
        std::vector<double> bins;  // features_.size() x kPsiMaxBins
    };
    std::vector<int> features_;
    std::vector<std::vector<float>> edges_;  // per measured feature
    std::vector<double> train_plain_, train_capped_;  // per measured feature x kPsiMaxBins
    double train_rows_ = 0, train_mass_ = 0;
    std::unordered_map<uint64_t, Counts> live_;
    double cap_;
};

}  // namespace jfp
