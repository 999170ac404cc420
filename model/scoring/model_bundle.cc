#include "model/scoring/model_bundle.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "model/util/json_number.h"
#include "model/util/text.h"

namespace jfp {

nlohmann::json features_to_json(const float *x, int n) {
    nlohmann::json a = nlohmann::json::array();
    for (int i = 0; i < n; ++i) {
        if (std::isnan(x[i])) a.push_back(nullptr);
        else a.push_back(x[i]);
    }
    return a;
}

void features_from_json(const nlohmann::json &j, float *x, int n) {
    if (!j.is_array() || static_cast<int>(j.size()) != n)
        throw std::runtime_error("a feature vector has " + std::to_string(j.size()) + " values, expected " +
                                 std::to_string(n));
    for (int i = 0; i < n; ++i) {
        const auto &v = j[static_cast<size_t>(i)];
        x[i] = v.is_null() ? std::numeric_limits<float>::quiet_NaN() : json_float(v, "a reference row's feature");
    }
}

ModelBundle ModelBundle::load_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot read the model bundle");
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception &e) {
        throw std::runtime_error(path + ": not a model bundle (JSON error: " + printable(e.what(), 300) +
                                 "); give the file jfp train wrote");
    }
    return from_json(j, path);
}

ModelBundle ModelBundle::load_text(const std::string &text, const std::string &origin) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception &e) {
        throw std::runtime_error(origin + ": not a model bundle (JSON error: " + printable(e.what(), 300) +
                                 "); give the file jfp train wrote");
    }
    return from_json(j, origin);
}

const nlohmann::json &ModelBundle::metadata() const {
    static const nlohmann::json kNone = nlohmann::json::object();
    return metadata_ ? *metadata_ : kNone;
}

ModelBundle ModelBundle::from_json(const nlohmann::json &j, const std::string &origin) {
    auto fail = [&](const std::string &what) -> void { throw std::runtime_error(origin + ": " + what); };
    try {
        if (!j.is_object() || j.value("format", "") != kBundleFormat)
            fail("not a jfp model bundle (no \"format\": \"jfp-model-bundle\"); produce one with jfp train");
        auto fvi = j.find("format_version");
        int fv = fvi == j.end() ? 0 : static_cast<int>(json_int(*fvi, INT32_MIN, INT32_MAX, "format_version"));
        if (fv != kBundleFormatVersion)
            fail("bundle format version " + std::to_string(fv) + ", this jfp reads version " +
                 std::to_string(kBundleFormatVersion) + "; retrain with this jfp or upgrade it");
        const auto &schema = j.at("feature_schema");
        int sv = static_cast<int>(json_int(schema.at("version"), INT32_MIN, INT32_MAX, "the feature schema version"));
        const auto &names = schema.at("names");
        const auto &ours = feature_names();
        // From kOldestPrefixSchema on, a bundle of an earlier schema names a prefix of our features: its
        // trees read those, and the features appended since are there for them to ignore.
        const int count = feature_count_of_schema(sv);
        std::string differs;  // the first feature that differs
        for (size_t i = 0; differs.empty() && i < ours.size() && i < names.size(); ++i)
            if (names[i].get<std::string>() != ours[i])
                differs = "feature " + std::to_string(i) + " is " + quote_for_message(names[i].get<std::string>(), 60) +
                          " in the bundle, " + quote_for_message(ours[i], 60) + " here";
        if (count == 0 || names.size() != static_cast<size_t>(count) || !differs.empty())
            fail("feature schema mismatch: the bundle was trained on schema " + std::to_string(sv) + " with " +
                 std::to_string(names.size()) + " features, this build computes schema " +
                 std::to_string(kFeatureSchemaVersion) + " with " + std::to_string(ours.size()) + " and reads schemas " +
                 std::to_string(kOldestPrefixSchema) + " to " + std::to_string(kFeatureSchemaVersion) +
                 (differs.empty() || count == 0 || names.size() != static_cast<size_t>(count) ? "" : ", but " + differs) +
                 "; retrain the model with this jfp (jfp train)");
        ModelBundle b;
        b.schema_version_ = sv;
        b.model_id_ = j.at("model_id").get<std::string>();
        b.threshold_ = j.at("threshold").get<double>();
        if (!(b.threshold_ >= 0 && b.threshold_ <= 1)) fail("threshold outside [0, 1]");
        const std::string kind = j.value("kind", "tree");
        if (kind == "rules") {
            const auto &id = j.at("rule");
            if (!id.is_string() || !(b.rule_ = parse_rule(id.get<std::string>())))
                fail("unknown rule " + printable(id.dump(), 80) + "; this jfp knows " + [] {
                    std::string all;
                    for (Rule r : kRules) all += (all.empty() ? "" : ", ") + std::string(rule_id(r));
                    return all;
                }() + " (retrain with this jfp)");
        } else if (kind == "tree") {
            try {
                b.failure_ = TreeEnsemble::from_xgboost_json(j.at("failure_model"), count);
                b.failure_.widen(kNumFeatures);
            } catch (const std::exception &e) {
                fail(std::string("failure model: ") + e.what());
            }
            if (b.failure_.num_classes() != 2) fail("the failure model is not a binary model");
        } else {
            fail("unknown bundle kind " + quote_for_message(kind, 40) + " (this jfp reads \"tree\" and \"rules\")");
        }
        if (j.contains("class_model") && !j.at("class_model").is_null()) {
            try {
                b.class_model_ = TreeEnsemble::from_xgboost_json(j.at("class_model"), count);
                b.class_model_->widen(kNumFeatures);
            } catch (const std::exception &e) {
                fail(std::string("class model: ") + e.what());
            }
            if (b.class_model_->num_classes() != kFailureClasses)
                fail("the class model predicts " + std::to_string(b.class_model_->num_classes()) + " classes, expected " +
                     std::to_string(kFailureClasses));
        }
        b.class_prior_.fill(1.0f / kFailureClasses);
        if (j.contains("class_prior")) {
            const auto &cp = j.at("class_prior");
            if (cp.size() != kFailureClasses) fail("class_prior must have 4 entries");
            for (size_t i = 0; i < kFailureClasses; ++i) b.class_prior_[i] = json_float(cp[i], "class_prior");
        }

        // XGBoost's own predictions for a few rows: the walk must reproduce them.
        if (j.contains("reference_rows")) {
            for (const auto &row : j.at("reference_rows")) {
                FeatureVector x;
                x.fill(std::numeric_limits<float>::quiet_NaN());
                features_from_json(row.at("x"), x.data(), count);
                double want = row.at("p_fail").get<double>();
                Score s = b.score(x);
                if (std::fabs(s.p_fail - want) > 1e-5)
                    fail("reference row " + std::to_string(b.reference_checked_) + ": the tree walk gives p=" +
                         std::to_string(s.p_fail) + ", XGBoost gave " + std::to_string(want) +
                         " (corrupt bundle or unsupported model)");
                if (b.class_model_ && row.contains("p_class")) {
                    const auto &pc = row.at("p_class");
                    for (size_t c = 0; c < kFailureClasses; ++c)
                        if (std::fabs(s.p_class[c] - pc[c].get<double>()) > 1e-5)
                            fail("reference row " + std::to_string(b.reference_checked_) +
                                 ": class probabilities differ from XGBoost's");
                }
                ++b.reference_checked_;
            }
        }
        // The pooled rates meant the jobs' before schema 4: a bundle trained then reads today's as unknown
        // (as for a new partition) rather than as the quantity it learned. After the reference rows, which
        // hold the rates it was trained on.
        if (sv < kPooledByUserSchema && !b.is_rules()) {
            for (int f : {F_p_fail_rate, F_p_recent_fail_rate, F_a_fail_rate, F_a_recent_fail_rate}) {
                b.pooled_forgotten_ = b.pooled_forgotten_ || b.failure_.uses_feature(f) || (b.class_model_ && b.class_model_->uses_feature(f));
                b.failure_.forget_feature(f);
                if (b.class_model_) b.class_model_->forget_feature(f);
            }
        }
        b.uses_script_features_ = false;
        for (int f = F_script_bytes; f <= F_script_set_e; ++f)
            if (b.uses_feature(f) || (b.class_model_ && b.class_model_->uses_feature(f))) b.uses_script_features_ = true;
        if (auto c = j.find("threshold_choice"); c != j.end() && c->is_object()) {
            auto t = c->find("target_reached");
            b.below_target_ = t != c->end() && t->is_boolean() && !t->get<bool>();
        }
        // decide_by = waste's budget, chosen by jfp train on validation ("waste_choice"); absent in older bundles.
        if (auto w = j.find("waste_choice"); w != j.end() && w->is_object()) {
            auto bud = w->find("budget");
            if (bud != w->end() && bud->is_number()) {
                double v = bud->get<double>();
                if (!(v > 0 && v < 1e12)) fail("waste_choice.budget must be a number of billing-hours above 0");
                b.waste_budget_ = v;
            }
            auto unit = w->find("unit");
            if (unit != w->end() && unit->is_string()) b.waste_unit_ = unit->get<std::string>();
        }
        auto metadata = std::make_shared<nlohmann::json>(j);
        metadata->erase("failure_model");
        metadata->erase("class_model");
        metadata->erase("reference_rows");
        b.metadata_ = std::move(metadata);
        return b;
    } catch (const nlohmann::json::exception &e) {
        throw std::runtime_error(origin + ": malformed model bundle: " + printable(e.what(), 300));
    }
}

std::string ModelBundle::describe_kind() const {
    if (rule_) return std::string("the rule '") + rule_label(*rule_) + "'";
    return "a tree model of " + std::to_string(failure_.num_trees()) + " trees";
}

bool ModelBundle::uses_feature(int f) const { return rule_ ? rule_reads(*rule_, f) : failure_.uses_feature(f); }

Score ModelBundle::score(const FeatureVector &x) const {
    Score s = score_failure(x);
    classify(x, s);
    return s;
}

Score ModelBundle::score_failure(const FeatureVector &x) const {
    Score s;
    s.p_fail = rule_ ? rule_score(*rule_, x) : failure_.predict_binary(x.data());
    return s;
}

void ModelBundle::classify(const FeatureVector &x, Score &s) const {
    if (class_model_) class_model_->predict_multi(x.data(), s.p_class.data());
    else s.p_class = class_prior_;
    s.top_class = 0;
    for (int c = 1; c < kFailureClasses; ++c)
        if (s.p_class[static_cast<size_t>(c)] > s.p_class[static_cast<size_t>(s.top_class)]) s.top_class = c;
    s.classified = true;
}

}  // namespace jfp
