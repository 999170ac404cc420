// An XGBoost gradient-boosted tree model, read from XGBoost's own JSON model format and flattened into
// compact node arrays for single-row scoring. A plain walk matches XGBoost's predictions exactly
// (left iff x < split, NaN follows default_left, float margin summed in tree order) and costs a few
// microseconds with no per-call allocation, no OpenMP and no thread-local state; the model bundle
// carries reference rows scored by XGBoost itself, which load() checks (see model_bundle.h).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace jfp {

class TreeEnsemble {
public:
    // Parses the "learner" JSON XGBoost writes with XGBoosterSaveModel(..."json"). Supports
    // binary:logistic, reg:logistic, multi:softprob/softmax; gbtree with numerical splits.
    // Throws std::runtime_error naming what is unsupported or malformed.
    static TreeEnsemble from_xgboost_json(const nlohmann::json &model, int expected_features);

    int num_features() const { return num_features_; }
    // Read as a model of n >= num_features() features (one of an earlier feature schema, whose features
    // are the first of ours): its trees index only the first ones; contributions put the bias at n.
    void widen(int n) {
        if (n > num_features_) num_features_ = n;
    }
    int num_classes() const { return num_groups_ == 1 ? 2 : num_groups_; }
    size_t num_trees() const { return tree_root_.size(); }
    size_t num_nodes() const { return nodes_.size(); }
    const std::string &objective() const { return objective_; }
    // Whether any split tests feature f: a feature no split tests cannot change a score.
    bool uses_feature(int f) const;
    // From now on feature f is read as unknown: every split on it sends each value where a missing one goes
    // (for a bundle trained when f meant something else).
    void forget_feature(int f);

    // Binary models: P(class 1). x has num_features() values (NaN = missing).
    float predict_binary(const float *x) const;
    // Multi-class models: fills out[num_groups] with softmax probabilities.
    void predict_multi(const float *x, float *out) const;
    // Raw margins per output group (size num_groups).
    void margins(const float *x, float *out) const;
    // The same, one tree after another: the reference the interleaved walk is held to, bit for bit (tests).
    void margins_one_by_one(const float *x, float *out) const;

    // Per-feature contributions to the binary margin along each tree's decision path (Saabas): how much
    // each feature moved the score. contrib has num_features()+1 entries; the last is the bias. Their
    // sum equals the margin.
    void contributions(const float *x, float *contrib) const;

private:
    struct Node {
        float value;     // split threshold, or leaf value
        uint32_t feat;   // feature index; top bit: missing values go left
        uint32_t left;   // index of left child (right = left + 1) relative to the tree root; 0 = leaf
    };
    static constexpr uint32_t kDefaultLeft = 0x80000000u;

    float walk(size_t tree, const float *x) const;
    // Calls add(tree, leaf value) for every tree, in tree order, walking kLanes trees at a time.
    template <class Add>
    void each_leaf(const float *x, Add &&add) const;
    static constexpr size_t kLanes = 8;

    std::vector<Node> nodes_;
    std::vector<float> node_mean_;  // expected margin at each node, for contributions
    std::vector<uint32_t> tree_root_;
    std::vector<uint32_t> tree_depth_;  // edges from the root to the deepest leaf
    std::vector<uint16_t> tree_group_;
    std::vector<float> base_margin_;  // per group
    int num_features_ = 0;
    int num_groups_ = 1;
    std::string objective_;
};

}  // namespace jfp
