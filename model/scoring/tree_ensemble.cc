#include "model/scoring/tree_ensemble.h"

#include <limits>

#include <nlohmann/json.hpp>

#include "model/util/json_number.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>

namespace jfp {

namespace {

// XGBoost writes numbers in parameter objects as strings ("5E-1").
double num(const nlohmann::json &j) {
    if (j.is_number()) return j.get<double>();
    if (j.is_string()) return std::stod(j.get<std::string>());
    throw std::runtime_error("expected a number in the XGBoost model, found " + std::string(j.type_name()));
}

const nlohmann::json &at(const nlohmann::json &j, const char *key) {
    auto it = j.find(key);
    if (it == j.end()) throw std::runtime_error(std::string("XGBoost model JSON lacks '") + key + "'");
    return *it;
}

}  // namespace

TreeEnsemble TreeEnsemble::from_xgboost_json(const nlohmann::json &model, int expected_features) {
    TreeEnsemble e;
    const auto &learner = at(model, "learner");
    const auto &lmp = at(learner, "learner_model_param");
    e.num_features_ = static_cast<int>(json_int(num(at(lmp, "num_feature")), 0, 1 << 20, "num_feature"));
    if (expected_features >= 0 && e.num_features_ != expected_features)
        throw std::runtime_error("the model has " + std::to_string(e.num_features_) + " features, the feature schema " +
                                 std::to_string(expected_features));
    int num_class = static_cast<int>(json_int(num(at(lmp, "num_class")), 0, 1 << 16, "num_class"));
    e.num_groups_ = num_class > 1 ? num_class : 1;
    // 1.x writes "5E-1"; 2.x/3.x may write "[5E-1]" or one value per class.
    std::vector<double> base_scores;
    {
        const auto &bs = at(lmp, "base_score");
        std::string text = bs.is_string() ? bs.get<std::string>() : std::to_string(num(bs));
        for (char &c : text)
            if (c == '[' || c == ']' || c == ',') c = ' ';
        size_t pos = 0;
        while (pos < text.size()) {
            while (pos < text.size() && text[pos] == ' ') ++pos;
            if (pos >= text.size()) break;
            size_t used = 0;
            base_scores.push_back(std::stod(text.substr(pos), &used));
            pos += used;
        }
        if (base_scores.empty()) throw std::runtime_error("empty base_score in the XGBoost model");
    }
    double base_score = base_scores[0];
    e.objective_ = at(at(learner, "objective"), "name").get<std::string>();
    if (e.objective_ == "binary:logistic" || e.objective_ == "reg:logistic") {
        if (!(base_score > 0 && base_score < 1)) throw std::runtime_error("base_score out of (0,1) for a logistic model");
        e.base_margin_.assign(1, static_cast<float>(std::log(base_score / (1.0 - base_score))));
    } else if (e.objective_ == "multi:softprob" || e.objective_ == "multi:softmax") {
        e.base_margin_.assign(static_cast<size_t>(e.num_groups_), to_float(base_score, "base_score"));
        if (base_scores.size() == static_cast<size_t>(e.num_groups_))
            for (size_t g = 0; g < base_scores.size(); ++g) e.base_margin_[g] = to_float(base_scores[g], "base_score");
    } else {
        throw std::runtime_error("unsupported objective '" + e.objective_ + "'");
    }

    const auto &gb = at(learner, "gradient_booster");
    if (at(gb, "name").get<std::string>() != "gbtree")
        throw std::runtime_error("unsupported booster '" + at(gb, "name").get<std::string>() + "' (need gbtree)");
    const auto &m = at(gb, "model");
    const auto &trees = at(m, "trees");
    const auto &info = at(m, "tree_info");
    if (info.size() != trees.size()) throw std::runtime_error("tree_info and trees differ in length");

    for (size_t t = 0; t < trees.size(); ++t) {
        const auto &tr = trees[t];
        const auto &lc = at(tr, "left_children");
        const auto &rc = at(tr, "right_children");
        const auto &si = at(tr, "split_indices");
        const auto &sc = at(tr, "split_conditions");
        const auto &dl = at(tr, "default_left");
        const auto &bw = at(tr, "base_weights");
        size_t n = lc.size();
        if (n == 0 || rc.size() != n || si.size() != n || sc.size() != n || dl.size() != n || bw.size() != n)
            throw std::runtime_error("tree " + std::to_string(t) + " has inconsistent node arrays");
        if (auto st = tr.find("split_type"); st != tr.end())
            for (const auto &v : *st)
                if (json_int(v, INT32_MIN, INT32_MAX, "split_type") != 0) throw std::runtime_error("categorical splits are not supported");
        auto group = static_cast<int>(json_int(info[t], -1, 1 << 16, "tree_info"));
        if (group < 0 || group >= e.num_groups_) throw std::runtime_error("tree_info names a group out of range");

        // Renumber breadth-first so that each node's children are adjacent (right = left + 1).
        uint32_t root = static_cast<uint32_t>(e.nodes_.size());
        std::vector<int64_t> order;
        order.reserve(n);
        std::vector<uint32_t> new_id(n, UINT32_MAX);
        std::deque<int64_t> q{0};
        new_id[0] = 0;
        uint32_t next = 1;
        while (!q.empty()) {
            int64_t old = q.front();
            q.pop_front();
            order.push_back(old);
            int64_t l = json_int(lc[static_cast<size_t>(old)], INT32_MIN, INT32_MAX, "left_children");
            int64_t r = json_int(rc[static_cast<size_t>(old)], INT32_MIN, INT32_MAX, "right_children");
            if (l >= 0) {
                if (r < 0 || static_cast<size_t>(l) >= n || static_cast<size_t>(r) >= n)
                    throw std::runtime_error("tree " + std::to_string(t) + " has a malformed child index");
                // l == r (found by fuzzing) would give one child two ids and the walk a node past the tree.
                if (l == r || new_id[static_cast<size_t>(l)] != UINT32_MAX || new_id[static_cast<size_t>(r)] != UINT32_MAX)
                    throw std::runtime_error("tree " + std::to_string(t) + " is not a tree (a node has two parents)");
                new_id[static_cast<size_t>(l)] = next++;
                new_id[static_cast<size_t>(r)] = next++;
                q.push_back(l);
                q.push_back(r);
            }
        }
        e.nodes_.resize(root + order.size());
        e.node_mean_.resize(root + order.size());
        // Breadth-first, so a node's parent comes before it: depths in one pass.
        std::vector<uint32_t> depth(order.size(), 0);
        uint32_t deepest = 0;
        for (int64_t old : order) {
            size_t o = static_cast<size_t>(old);
            Node &nd = e.nodes_[root + new_id[o]];
            int64_t l = json_int(lc[o], INT32_MIN, INT32_MAX, "left_children");
            float value = to_float(num(sc[o]), "split_conditions");
            // A split at -Infinity (XGBoost 3.x) sends every present value right: kept as is. A NaN
            // split or a non-finite leaf is no model XGBoost writes.
            if (l < 0 ? !std::isfinite(value) : std::isnan(value))
                throw std::runtime_error("tree " + std::to_string(t) + " has a " + (l < 0 ? "non-finite leaf" : "NaN split") +
                                         " value");
            if (l < 0) {
                nd = {value, 0, 0};
            } else {
                int64_t feat = json_int(si[o], INT32_MIN, INT32_MAX, "split_indices");
                if (feat < 0 || feat >= e.num_features_)
                    throw std::runtime_error("tree " + std::to_string(t) + " splits on feature " + std::to_string(feat) +
                                             " of " + std::to_string(e.num_features_));
                uint32_t f = static_cast<uint32_t>(feat);
                if (json_int(dl[o], INT32_MIN, INT32_MAX, "default_left") != 0) f |= kDefaultLeft;
                nd = {value, f, new_id[static_cast<size_t>(l)]};
                depth[nd.left] = depth[nd.left + 1] = depth[new_id[o]] + 1;
                deepest = std::max(deepest, depth[nd.left]);
            }
            e.node_mean_[root + new_id[o]] = to_float(num(bw[o]), "base_weights");
        }
        // base_weights of leaves are the leaf values before the learning rate; rescale all node means of
        // this tree so that leaves agree with the values actually added to the margin.
        double leaf_w = 0, leaf_v = 0;
        for (size_t i = root; i < e.nodes_.size(); ++i)
            if (e.nodes_[i].left == 0 && e.node_mean_[i] != 0) {
                leaf_w = e.node_mean_[i];
                leaf_v = e.nodes_[i].value;
                break;
            }
        double scale = leaf_w != 0 ? leaf_v / leaf_w : 1.0;
        for (size_t i = root; i < e.nodes_.size(); ++i) e.node_mean_[i] = static_cast<float>(e.node_mean_[i] * scale);
        e.tree_root_.push_back(root);
        e.tree_depth_.push_back(deepest);
        e.tree_group_.push_back(static_cast<uint16_t>(group));
    }
    return e;
}

inline float TreeEnsemble::walk(size_t tree, const float *x) const {
    const Node *base = nodes_.data() + tree_root_[tree];
    const Node *n = base;
    while (n->left != 0) {
        float v = x[n->feat & ~kDefaultLeft];
        bool go_left = std::isnan(v) ? (n->feat & kDefaultLeft) != 0 : v < n->value;
        n = base + n->left + (go_left ? 0 : 1);
    }
    return n->value;
}

// kLanes trees at once, each for the same number of steps (the deepest of them; a leaf stays where it is):
// no branch per node to mispredict, and kLanes independent chains of loads whose cache misses overlap,
// which matters most inside slurmctld, where other work has evicted the trees between two submissions
// (docs/performance.md). The last group takes the trees left over. The leaves are then added in tree order,
// so every sum is the plain walk's. (Wider groups, 16 or 32, were no faster cold: docs/performance.md §1.)
template <class Add>
void TreeEnsemble::each_leaf(const float *x, Add &&add) const {
    const size_t trees = tree_root_.size();
    for (size_t t = 0; t < trees; t += kLanes) {
        const size_t lanes = std::min(kLanes, trees - t);
        const Node *base[kLanes];
        uint32_t at[kLanes] = {};
        uint32_t steps = 0;
        for (size_t k = 0; k < lanes; ++k) {
            base[k] = nodes_.data() + tree_root_[t + k];
            steps = std::max(steps, tree_depth_[t + k]);
        }
        for (uint32_t s = 0; s < steps; ++s)
            for (size_t k = 0; k < lanes; ++k) {
                const Node &n = base[k][at[k]];
                const float v = x[n.feat & ~kDefaultLeft];  // a leaf's feature is 0: a read, never used
                // x < split, or missing (NaN compares false) with default_left; written without branches.
                const bool left = (v < n.value) | ((v != v) & ((n.feat & kDefaultLeft) != 0));
                const uint32_t next = n.left + (left ? 0u : 1u);
                at[k] = n.left != 0 ? next : at[k];
            }
        for (size_t k = 0; k < lanes; ++k) add(t + k, base[k][at[k]].value);
    }
}

void TreeEnsemble::margins(const float *x, float *out) const {
    for (int g = 0; g < num_groups_; ++g) out[g] = base_margin_[static_cast<size_t>(g)];
    if (num_groups_ == 1) {
        float m = out[0];
        each_leaf(x, [&](size_t, float v) { m += v; });
        out[0] = m;
        return;
    }
    each_leaf(x, [&](size_t t, float v) { out[tree_group_[t]] += v; });
}

void TreeEnsemble::margins_one_by_one(const float *x, float *out) const {
    for (int g = 0; g < num_groups_; ++g) out[g] = base_margin_[static_cast<size_t>(g)];
    for (size_t t = 0; t < tree_root_.size(); ++t) out[tree_group_[t]] += walk(t, x);
}

float TreeEnsemble::predict_binary(const float *x) const {
    float m = base_margin_[0];
    each_leaf(x, [&](size_t, float v) { m += v; });
    return 1.0f / (1.0f + std::exp(-m));
}

void TreeEnsemble::predict_multi(const float *x, float *out) const {
    margins(x, out);
    float mx = out[0];
    for (int g = 1; g < num_groups_; ++g) mx = std::max(mx, out[g]);
    float sum = 0;
    for (int g = 0; g < num_groups_; ++g) {
        out[g] = std::exp(out[g] - mx);
        sum += out[g];
    }
    for (int g = 0; g < num_groups_; ++g) out[g] /= sum;
}

void TreeEnsemble::contributions(const float *x, float *contrib) const {
    for (int i = 0; i <= num_features_; ++i) contrib[i] = 0;
    contrib[num_features_] = base_margin_[0];
    for (size_t t = 0; t < tree_root_.size(); ++t) {
        if (tree_group_[t] != 0) continue;
        const Node *base = nodes_.data() + tree_root_[t];
        const float *mean = node_mean_.data() + tree_root_[t];
        uint32_t i = 0;
        contrib[num_features_] += mean[0];
        while (base[i].left != 0) {
            const Node &n = base[i];
            uint32_t f = n.feat & ~kDefaultLeft;
            float v = x[f];
            bool go_left = std::isnan(v) ? (n.feat & kDefaultLeft) != 0 : v < n.value;
            uint32_t child = n.left + (go_left ? 0 : 1);
            contrib[f] += mean[child] - mean[i];
            i = child;
        }
        // The leaf's value is what the margin gets; absorb any float drift from the means into the bias.
        contrib[num_features_] += base[i].value - mean[i];
    }
}

void TreeEnsemble::forget_feature(int f) {
    // x < value goes left: +inf sends every known value left, -inf right, where a missing one goes.
    for (Node &n : nodes_)
        if (n.left != 0 && static_cast<int>(n.feat & ~kDefaultLeft) == f)
            n.value = (n.feat & kDefaultLeft) ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
}

bool TreeEnsemble::uses_feature(int f) const {
    for (const Node &n : nodes_)
        if (n.left != 0 && static_cast<int>(n.feat & ~kDefaultLeft) == f) return true;
    return false;
}

}  // namespace jfp
