// The model bundle: what `jfp train` publishes and job_submit/jfp loads. One JSON file holding the
// failure model and the failure-class model (both in XGBoost's own JSON format), the feature schema
// they were trained on, the decision threshold, training metadata, and reference rows scored by XGBoost
// itself. Loading re-scores the reference rows with the tree walk and refuses the bundle if any differs.
// A bundle of kind "rules" holds a history rule (rules.h) in place of the failure model: jfp train writes
// one when no tree model beats the rules, or when there is too little history to train one.
#pragma once

// json_fwd: the full header costs every unit that includes this one about 1.5 s of compile time.
#include <nlohmann/json_fwd.hpp>

#include <array>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "model/jobs/outcome.h"
#include "model/scoring/rules.h"
#include "model/scoring/features.h"
#include "model/scoring/tree_ensemble.h"

namespace jfp {

inline constexpr const char *kBundleFormat = "jfp-model-bundle";
inline constexpr int kBundleFormatVersion = 1;

struct Score {
    float p_fail = 0;
    // P(class | failed) for FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL.
    std::array<float, kFailureClasses> p_class{};
    int top_class = 0;  // index into kFailureClassOutcomes
    bool classified = false;  // p_class and top_class computed (score, or score_failure then classify)
};

class ModelBundle {
public:
    // Throws std::runtime_error naming the file and what is wrong: unreadable, not JSON, another format
    // version, a feature schema this build does not compute, or reference rows that do not reproduce.
    static ModelBundle load_file(const std::string &path);
    // The bundle from its text; origin names it in errors.
    static ModelBundle load_text(const std::string &text, const std::string &origin);
    static ModelBundle from_json(const nlohmann::json &bundle, const std::string &origin);

    Score score(const FeatureVector &x) const;
    // p_fail alone. The class trees are most of a bundle's walk and the class is said only of a job at or
    // above its threshold, so the submit path walks them only for such a job (classify).
    Score score_failure(const FeatureVector &x) const;
    void classify(const FeatureVector &x, Score &s) const;

    const std::string &model_id() const { return model_id_; }
    // The failure score comes from a history rule, not from trees (failure_model() is then empty).
    bool is_rules() const { return rule_.has_value(); }
    std::optional<Rule> rule() const { return rule_; }
    // "a tree model of 57 trees", "the rule 'last run of user+name failed'": for log lines.
    std::string describe_kind() const;
    // Whether the failure score reads feature f.
    bool uses_feature(int f) const;
    double threshold() const { return threshold_; }
    const TreeEnsemble &failure_model() const { return failure_; }
    bool has_class_model() const { return class_model_.has_value(); }
    // Whether either model splits on a script feature. When neither does, the plugin need not scan the
    // job script on the submit path (scores cannot depend on it).
    bool uses_script_features() const { return uses_script_features_; }
    const TreeEnsemble *class_model() const { return class_model_ ? &*class_model_ : nullptr; }
    const nlohmann::json &metadata() const;  // everything except the models
    size_t reference_rows_checked() const { return reference_checked_; }
    // The feature schema it was trained on: kFeatureSchemaVersion, or an earlier one read as a prefix.
    int feature_schema() const { return schema_version_; }
    // Trained before kPooledByUserSchema on the partition's or account's rates, which it now reads as unknown.
    bool pooled_forgotten() const { return pooled_forgotten_; }
    // jfp train recorded that no threshold reached its target precision on validation (it fell back to
    // the best F1). False for bundles that record nothing (older jfp).
    bool below_target() const { return below_target_; }
    // The expected-waste budget jfp train chose on validation (billing-hours); NaN when it records none.
    double waste_budget() const { return waste_budget_; }
    // The unit jfp train priced jobs in for that budget ("core-hours", "billing-hours"); empty when unrecorded.
    const std::string &waste_unit() const { return waste_unit_; }

private:
    std::string model_id_;
    int schema_version_ = 0;
    double threshold_ = 0.5;
    TreeEnsemble failure_;
    std::optional<Rule> rule_;
    std::optional<TreeEnsemble> class_model_;
    bool uses_script_features_ = true;
    std::array<float, kFailureClasses> class_prior_{};
    std::shared_ptr<const nlohmann::json> metadata_;
    size_t reference_checked_ = 0;
    bool below_target_ = false;
    bool pooled_forgotten_ = false;
    double waste_budget_ = std::numeric_limits<double>::quiet_NaN();
    std::string waste_unit_;
};

// Feature vectors travel through JSON with NaN as null.
nlohmann::json features_to_json(const float *x, int n);
void features_from_json(const nlohmann::json &j, float *x, int n);

}  // namespace jfp
