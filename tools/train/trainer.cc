#include "tools/train/trainer.h"
#include "tools/train/bundle_threshold.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <cstdlib>
#include <functional>
#include <stdexcept>

#include "jfp_config.h"
#include "model/scoring/model_bundle.h"
#include "model/files/atomic_file.h"
#include "model/util/time_util.h"
#include "tools/terminal/progress.h"
#include "tools/train/model_choice.h"
#include "tools/train/xgb.h"

namespace jfp {

namespace {

std::string window_json_time(int64_t t) { return t > 0 ? format_sacct_time(t) : ""; }

void set_common(xgb::Booster &b, const TrainOptions &opt) {
    b.set("tree_method", "hist");
    // XGBoost 2.0+ estimates the intercept from the labels when base_score is unset; 1.7 leaves it at 0.5.
    // On a small history the estimated intercept made early stopping keep one round (XGBoost 3.0,
    // ROC-AUC 0.43 where 1.7 gave > 0.6). Pinned, every release trains the same kind of model.
    b.set("base_score", "0.5");
    b.set("eta", std::to_string(opt.eta));
    b.set("subsample", std::to_string(opt.subsample));
    b.set("colsample_bytree", std::to_string(opt.colsample));
    b.set("min_child_weight", std::to_string(opt.min_child_weight));
    b.set("seed", std::to_string(opt.seed));
    b.set("nthread", std::to_string(opt.nthread));
    b.set("verbosity", "1");
}

// Up to `wanted` rows spread evenly over `src`, with the model's scores of each: the shipped trees' (or, with
// no tree, the rule's) p_fail and the class model's probabilities.
nlohmann::json reference_rows(const RowSet &src, size_t wanted, const xgb::Booster *tree, Rule rule,
                              const xgb::Booster *class_model) {
    nlohmann::json refs = nlohmann::json::array();
    const size_t nref = std::min(wanted, src.size());
    if (nref == 0) return refs;
    std::vector<float> rx;
    for (size_t k = 0; k < nref; ++k) {
        size_t i = k * src.size() / nref;
        rx.insert(rx.end(), src.x.begin() + static_cast<long>(i * kNumFeatures),
                  src.x.begin() + static_cast<long>((i + 1) * kNumFeatures));
    }
    xgb::DMatrix dref(rx.data(), nref, kNumFeatures);
    std::vector<float> p;
    if (tree) p = tree->predict(dref);
    std::vector<float> pc;
    if (class_model) pc = class_model->predict(dref);
    for (size_t k = 0; k < nref; ++k) {
        nlohmann::json row;
        row["x"] = features_to_json(rx.data() + k * kNumFeatures, kNumFeatures);
        if (tree) {
            row["p_fail"] = p[k];
        } else {
            FeatureVector fx;
            std::copy(rx.begin() + static_cast<long>(k * kNumFeatures), rx.begin() + static_cast<long>((k + 1) * kNumFeatures), fx.begin());
            row["p_fail"] = rule_score(rule, fx);
        }
        if (class_model) {
            nlohmann::json cls = nlohmann::json::array();
            for (int c = 0; c < kFailureClasses; ++c) cls.push_back(pc[k * kFailureClasses + static_cast<size_t>(c)]);
            row["p_class"] = cls;
        }
        refs.push_back(row);
    }
    return refs;
}

}  // namespace

nlohmann::json train_bundle(const HistoryStore &store, const TrainOptions &opt, TrainSummary &summary) {
    TrainingWindow window = choose_training_window(store, opt);
    const std::optional<int64_t> &cutoff = window.cutoff;
    RowSet train, val;
    std::vector<int> ignored;
    for (const auto &name : opt.ignore_features) {
        int f = feature_index(name.c_str());
        if (f < 0) throw std::runtime_error("--ignore-feature " + name + ": no such feature (docs/features.md lists them)");
        ignored.push_back(f);
    }
    SweepSources sources = sweep_training_rows(store, opt, window, [&](const JobRecord &j, const FeatureVector &x, Split s) {
        (s == Split::Validation ? val : train).add(x, j, opt.billing.billing_rule(j.partition));
        RowSet &rows = s == Split::Validation ? val : train;
        for (int f : ignored) rows.x[rows.x.size() - kNumFeatures + static_cast<size_t>(f)] = std::nanf("");
    });
    summary.logged_vectors = sources.logged_vectors;
    summary.archived_scripts = sources.archived_scripts;
    double sweep_seconds = sources.seconds;
    summary.train_rows = train.size();
    summary.train_failures = train.positives();
    summary.val_rows = val.size();
    summary.val_failures = val.positives();
    const uint64_t all_rows = summary.train_rows + summary.val_rows;
    const uint64_t all_failures = summary.train_failures + summary.val_failures;
    if (all_failures < kMinFailuresForRules) {
        // Jobs that ran across the validation start count in neither split: on a young cluster with
        // concurrent jobs they can be most of the history, and then the remedy is a longer span, not more ends.
        std::string straddle;
        if (sources.straddling > 0)
            straddle = "; " + jobs_failed_text(sources.straddling, sources.straddling_failed) +
                       " ran across the validation window's start (" + format_sacct_time(window.validation_start) +
                       ") and count in neither split: a training row must end before the jobs it is validated on are "
                       "submitted";
        throw std::runtime_error(
            "too little evidence: the training window holds " + jobs_failed_text(all_rows, all_failures) + " as training and validation rows (training rows " +
            jobs_failed_text(summary.train_rows, summary.train_failures) + ", validation " +
            jobs_failed_text(summary.val_rows, summary.val_failures) + straddle + "); jfp needs at least " +
            std::to_string(kMinFailuresForRules) + " failed jobs among them even for a rules bundle. " +
            (sources.straddling > all_rows
                 ? "Train again once the cluster's history spans longer than its jobs run (more jobs submitted after "
                   "those in flight ended), or ingest an older history (sacct -S with an earlier start)"
                 : "Ingest a longer sacct history (sacct -S with an earlier start), or train again when more jobs have "
                   "failed or completed") +
            "; no bundle was written");
    }
    if (all_failures == all_rows)
        throw std::runtime_error("every one of the " + std::to_string(all_rows) +
                                 " jobs in the training window failed; a model needs both outcomes. Ingest more history or move the cutoff");
    const std::string no_tree =
        why_no_tree(opt.kind, summary.train_rows, summary.train_failures, summary.val_rows, summary.val_failures,
                    static_cast<double>(train.last_submit - train.first_submit) / 86400.0);
    if (opt.kind == "tree" && !no_tree.empty()) throw std::runtime_error("--kind tree: no tree model can be trained: " + no_tree);

    // Failure rows for the class model.
    RowSet train_fail = train.failures(), val_fail = val.failures();

    Progress progress(opt.progress);
    std::optional<xgb::Booster> tree;
    std::vector<float> tree_val_scores;
    double spw = opt.scale_pos_weight;
    double train_seconds = 0;
    if (no_tree.empty()) {
        xgb::DMatrix dtrain(train.x.data(), train.size(), kNumFeatures);
        dtrain.set_labels(train.label);
        std::vector<float>().swap(train.x);
        xgb::DMatrix dval(val.x.data(), val.size(), kNumFeatures);
        dval.set_labels(val.label);
        if (opt.weight != "none") {
            dtrain.set_weights(cost_weights(train.waste, opt.weight));
            dval.set_weights(cost_weights(val.waste, opt.weight));
        }
        if (spw <= 0)
            spw = static_cast<double>(summary.train_rows - summary.train_failures) / static_cast<double>(summary.train_failures);
        auto t0 = std::chrono::steady_clock::now();
        xgb::Booster booster({&dtrain, &dval});
        set_common(booster, opt);
        booster.set("objective", "binary:logistic");
        // Early stopping on log-loss: smooth and proper. aucpr on a few thousand validation rows jumps
        // around and stopped after one round on small histories (measured; see docs/model.md).
        booster.set("eval_metric", opt.stop_metric);
        booster.set("max_depth", std::to_string(opt.max_depth));
        booster.set("scale_pos_weight", std::to_string(spw));
        booster.set("monotone_constraints", monotone_constraints());
        int keep = xgb::boost_with_early_stopping(booster, dtrain, &dval, opt.stop_metric, opt.stop_metric == "aucpr" || opt.stop_metric == "auc",
                         opt.rounds, opt.early_stopping_rounds, opt.progress ? &progress : nullptr, "failure model");
        summary.best_iteration = keep;
        tree.emplace(booster.slice(keep));
        train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        tree_val_scores = tree->predict(dval);
    }
    std::vector<float>().swap(train.x);

    // Tree or rule, compared on validation; a rule alone is measured on the whole window when validation
    // holds too few failures to tell rules apart (a rule has nothing fitted, so no row is "seen").
    const bool val_usable = summary.val_failures >= kMinValidationFailures && summary.val_failures < summary.val_rows;
    std::vector<int> cmp_labels = val_usable ? val.labels() : train.labels();
    std::array<std::vector<float>, kNumRules> cmp_rules = val_usable ? val.rule : train.rule;
    if (!val_usable) {
        auto vl = val.labels();
        cmp_labels.insert(cmp_labels.end(), vl.begin(), vl.end());
        for (size_t r = 0; r < kNumRules; ++r) cmp_rules[r].insert(cmp_rules[r].end(), val.rule[r].begin(), val.rule[r].end());
    }
    std::vector<int> all_labels;
    std::array<std::vector<float>, kNumRules> all_rules;
    if (val_usable) {
        all_labels = train.labels();
        auto vl = val.labels();
        all_labels.insert(all_labels.end(), vl.begin(), vl.end());
        for (size_t r = 0; r < kNumRules; ++r) {
            all_rules[r] = train.rule[r];
            all_rules[r].insert(all_rules[r].end(), val.rule[r].begin(), val.rule[r].end());
        }
    }
    summary.comparison = compare_with_rules(cmp_rules, tree_val_scores, cmp_labels,
                                            val_usable ? "validation window" : "training window", no_tree, opt.kind,
                                            val_usable ? &all_rules : nullptr, val_usable ? &all_labels : nullptr);
    const bool ship_tree = summary.comparison.tree_chosen;
    const Rule rule = summary.comparison.best_rule;
    const std::vector<float> &chosen_scores = ship_tree ? tree_val_scores : cmp_rules[static_cast<size_t>(rule)];
    summary.threshold = choose_threshold(chosen_scores, cmp_labels, opt.target_precision, 5, !ship_tree);
    summary.validation = evaluate_binary(chosen_scores, cmp_labels, summary.threshold.threshold);
    summary.kind = ship_tree ? "tree" : "rules";
    if (!ship_tree) summary.best_iteration = 0;

    // The waste budget, on the same rows and scores as the threshold.
    {
        std::vector<WasteJob> rows = val_usable ? val.waste : train.waste;
        if (!val_usable) rows.insert(rows.end(), val.waste.begin(), val.waste.end());
        for (size_t i = 0; i < rows.size() && i < chosen_scores.size(); ++i) rows[i].p = chosen_scores[i];
        summary.waste = choose_budget(rows, summary.threshold.threshold, opt.refused_per_week, summary.threshold.target_reached);
        for (const auto &[name, p] : opt.billing.partitions)
            if (p.billing) summary.waste_unit = "billing-hours";
    }

    // Failure-class model: which failure, given a failure.
    std::array<double, kFailureClasses> class_counts{};
    for (int c : train_fail.cls) class_counts[static_cast<size_t>(c)] += 1;
    int classes_present = 0;
    for (double c : class_counts) classes_present += c > 0;
    std::optional<xgb::Booster> class_model;
    auto t_class = std::chrono::steady_clock::now();
    if (train_fail.size() < 20) summary.class_model_note = "fewer than 20 failed training rows";
    else if (classes_present < 2) summary.class_model_note = "every failed training row is of one class";
    if (train_fail.size() >= 20 && classes_present >= 2) {
        xgb::DMatrix dcls(train_fail.x.data(), train_fail.size(), kNumFeatures);
        dcls.set_labels(train_fail.label);
        std::unique_ptr<xgb::DMatrix> dcls_val;
        if (val_fail.size() > 0) {
            dcls_val = std::make_unique<xgb::DMatrix>(val_fail.x.data(), val_fail.size(), kNumFeatures);
            dcls_val->set_labels(val_fail.label);
        }
        std::vector<const xgb::DMatrix *> ccache{&dcls};
        if (dcls_val) ccache.push_back(dcls_val.get());
        xgb::Booster cb(ccache);
        set_common(cb, opt);
        cb.set("objective", "multi:softprob");
        cb.set("num_class", std::to_string(kFailureClasses));
        cb.set("eval_metric", "mlogloss");
        cb.set("max_depth", std::to_string(opt.class_max_depth));
        int ckeep = xgb::boost_with_early_stopping(cb, dcls, dcls_val.get(), "mlogloss", false, opt.class_rounds, opt.early_stopping_rounds,
                          opt.progress ? &progress : nullptr, "class model");
        class_model.emplace(cb.slice(ckeep));
        summary.class_model = true;
    }
    double class_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_class).count();

    // Reference rows: XGBoost's own predictions (or the rule's), which the loader must reproduce.
    const RowSet &ref_src = val.size() > 0 ? val : train_fail;
    const nlohmann::json refs = reference_rows(ref_src, opt.reference_rows, ship_tree ? &*tree : nullptr, rule,
                                               class_model ? &*class_model : nullptr);

    std::string model_json = ship_tree ? tree->save_json() : std::string("rule:") + rule_id(rule);
    nlohmann::json bundle;
    bundle["format"] = kBundleFormat;
    bundle["format_version"] = kBundleFormatVersion;
    bundle["kind"] = summary.kind;
    if (!ship_tree) bundle["rule"] = rule_id(rule);
    {
        time_t now = time(nullptr);
        char ts[32];
        std::strftime(ts, sizeof ts, "%Y%m%dT%H%M%S", std::gmtime(&now));
        // The id names this exact model: creation time plus a hash of the trees (or the rule and threshold).
        if (!ship_tree) model_json += "@" + std::to_string(summary.threshold.threshold);
        uint64_t h = 1469598103934665603ull;
        for (unsigned char c : model_json) h = (h ^ c) * 1099511628211ull;
        char id[64];
        std::snprintf(id, sizeof id, "%s-%08llx", ts, static_cast<unsigned long long>(h & 0xffffffffull));
        summary.model_id = id;
        bundle["model_id"] = id;
        char created[32];
        std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
        bundle["created"] = created;
    }
    bundle["jfp_version"] = PACKAGE_VERSION;
    bundle["xgboost_version"] = xgb::version();
    bundle["feature_schema"] = {{"version", kFeatureSchemaVersion}, {"names", feature_names()}};
    set_threshold_fields(bundle, summary.threshold, summary.validation, opt.target_precision,
                         val_usable ? "validation" : "training window (too few failures in validation)");
    bundle["model_choice"] = summary.comparison.to_json();
    {
        const BudgetChoice &w = summary.waste;
        nlohmann::json wc = {{"source", val_usable ? "validation" : "training window (too few failures in validation)"},
                             {"unit", summary.waste_unit},
                             {"refused_per_week_limit", w.limit_per_week},
                             {"confidence", 0.95},
                             {"weeks", w.weeks},
                             {"limit_met", w.limit_met}};
        if (w.limit_met) {
            wc["budget"] = w.budget;
            wc["refused_per_week"] = w.per_week;
            wc["refused_per_week_upper_bound"] = w.per_week_upper;
            wc["failed_caught"] = w.at_budget.failed_caught;
            wc["failed_hours_caught"] = w.at_budget.burnt_caught;
            wc["failed_hours"] = w.at_budget.burnt_failed;
            wc["wrongly_refused"] = w.at_budget.wrongly_refused;
        }
        bundle["waste_choice"] = wc;
    }
    bundle["classes"] = nlohmann::json::array();
    double total_fail = 0;
    for (double c : class_counts) total_fail += c;
    nlohmann::json prior = nlohmann::json::array();
    for (int c = 0; c < kFailureClasses; ++c) {
        bundle["classes"].push_back(outcome_name(kFailureClassOutcomes[c]));
        prior.push_back((class_counts[static_cast<size_t>(c)] + 1.0) / (total_fail + kFailureClasses));
    }
    bundle["class_prior"] = prior;
    nlohmann::json training;
    training["cutoff"] = cutoff ? format_sacct_time(*cutoff) : "";
    training["validation_start"] = format_sacct_time(window.validation_start);
    training["train_window"] = {window_json_time(train.first_submit), window_json_time(train.last_submit)};
    training["validation_window"] = {window_json_time(val.first_submit), window_json_time(val.last_submit)};
    training["rows"] = {{"train", summary.train_rows},
                        {"train_failures", summary.train_failures},
                        {"validation", summary.val_rows},
                        {"validation_failures", summary.val_failures}};
    training["best_iteration"] = summary.best_iteration;
    training["logged_feature_vectors"] = summary.logged_vectors;
    training["archived_scripts"] = summary.archived_scripts;
    training["seconds"] = train_seconds;  // the failure model's boosting
    training["feature_sweep_seconds"] = sweep_seconds;
    training["class_model_seconds"] = class_seconds;
    training["params"] = {{"monotone_constraints", monotone_constraints()}, {"rounds", opt.rounds},          {"early_stopping_rounds", opt.early_stopping_rounds},
                          {"max_depth", opt.max_depth},    {"eta", opt.eta},
                          {"subsample", opt.subsample},    {"colsample_bytree", opt.colsample},
                          {"min_child_weight", opt.min_child_weight}, {"scale_pos_weight", spw},
                          {"class_rounds", opt.class_rounds}, {"class_max_depth", opt.class_max_depth},
                          {"tree_method", "hist"}, {"base_score", 0.5}, {"weight", opt.weight},
                          {"ignored_features", opt.ignore_features}};
    bundle["training"] = training;
    bundle["failure_model"] = ship_tree ? xgb::parse_model_json(model_json) : nlohmann::json();
    bundle["class_model"] = class_model ? xgb::parse_model_json(class_model->save_json()) : nlohmann::json();
    bundle["reference_rows"] = refs;

    // Never publish a bundle the plugin would refuse: load it exactly as the plugin does.
    summary.uses_script_features = ModelBundle::from_json(bundle, "the new bundle").uses_script_features();
    return bundle;
}

void write_bundle(const nlohmann::json &bundle, const std::string &path) { write_file_atomically(path, bundle.dump(), 0644); }

}  // namespace jfp
