#include "tools/train/trainer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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
#include "model/util/time_util.h"
#include "tools/terminal/progress.h"
#include "tools/train/xgb.h"

namespace jfp {

namespace {

struct Rows {
    std::vector<float> x;  // row-major
    std::vector<float> label;
    std::vector<int> cls;  // failure class index, -1 for COMPLETED
    int64_t first_submit = 0, last_submit = 0;
    size_t size() const { return label.size(); }
    void add(const FeatureVector &f, const JobRecord &j) {
        x.insert(x.end(), f.begin(), f.end());
        bool fail = is_failure(j.outcome);
        label.push_back(fail ? 1.0f : 0.0f);
        cls.push_back(failure_class_index(j.outcome));
        if (first_submit == 0 || j.submit < first_submit) first_submit = j.submit;
        last_submit = std::max(last_submit, j.submit);
    }
    size_t positives() const {
        size_t n = 0;
        for (float l : label) n += l > 0.5f;
        return n;
    }
    void release() {
        std::vector<float>().swap(x);
    }
};

double metric_from_eval(const std::string &line, const std::string &name) {
    auto pos = line.find(name + ":");
    if (pos == std::string::npos) return std::nan("");
    return std::strtod(line.c_str() + pos + name.size() + 1, nullptr);
}

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

// Boosts up to `rounds`, evaluating `metric` on val each round; stops after `patience` rounds without
// improvement. Returns the number of rounds to keep.
int boost(xgb::Booster &b, const xgb::DMatrix &train, const xgb::DMatrix *val, const std::string &metric,
          bool maximize, int rounds, int patience, Progress *progress, const char *label) {
    double best = maximize ? -INFINITY : INFINITY;
    int best_round = rounds;
    for (int i = 0; i < rounds; ++i) {
        b.update(i, train);
        if (!val) {
            if (progress) progress->update(i + 1, rounds, std::string(label));
            continue;
        }
        double v = metric_from_eval(b.eval(i, *val, "val"), "val-" + metric);
        if (!std::isnan(v) && (maximize ? v > best : v < best)) {
            best = v;
            best_round = i + 1;
        }
        if (progress) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "%s val-%s %.4f (best %.4f at %d)", label, metric.c_str(), v, best, best_round);
            progress->update(i + 1, rounds, buf);
        }
        if (i + 1 - best_round >= patience) break;
    }
    if (progress) progress->finish();
    return best_round;
}

}  // namespace

nlohmann::json train_bundle(const HistoryStore &store, const TrainOptions &opt, TrainSummary &summary) {
    TrainingWindow window = choose_training_window(store, opt);
    const std::optional<int64_t> &cutoff = window.cutoff;
    Rows train, val;
    SweepSources sources = sweep_training_rows(store, opt, window, [&](const JobRecord &j, const FeatureVector &x, Split s) {
        (s == Split::Validation ? val : train).add(x, j);
    });
    summary.logged_vectors = sources.logged_vectors;
    summary.archived_scripts = sources.archived_scripts;
    double sweep_seconds = sources.seconds;
    summary.train_rows = train.size();
    summary.train_failures = train.positives();
    summary.val_rows = val.size();
    summary.val_failures = val.positives();
    if (summary.train_failures == 0 || summary.train_failures == summary.train_rows)
        throw std::runtime_error("the training window holds " + std::to_string(summary.train_rows) + " jobs of which " +
                                 std::to_string(summary.train_failures) +
                                 " failed; a model needs both outcomes. Ingest more history or move the cutoff");

    // Failure rows for the class model, before the big matrix is released.
    Rows train_fail, val_fail;
    auto pick_failures = [](const Rows &from, Rows &to) {
        for (size_t i = 0; i < from.size(); ++i) {
            if (from.label[i] < 0.5f) continue;
            to.x.insert(to.x.end(), from.x.begin() + static_cast<long>(i * kNumFeatures),
                        from.x.begin() + static_cast<long>((i + 1) * kNumFeatures));
            to.label.push_back(static_cast<float>(from.cls[i]));
            to.cls.push_back(from.cls[i]);
        }
    };
    pick_failures(train, train_fail);
    pick_failures(val, val_fail);

    Progress progress(opt.progress);
    xgb::DMatrix dtrain(train.x.data(), train.size(), kNumFeatures);
    dtrain.set_labels(train.label);
    train.release();
    bool val_usable = val.size() > 0 && summary.val_failures > 0 && summary.val_failures < summary.val_rows;
    std::unique_ptr<xgb::DMatrix> dval;
    if (val.size() > 0) {
        dval = std::make_unique<xgb::DMatrix>(val.x.data(), val.size(), kNumFeatures);
        dval->set_labels(val.label);
    }

    double spw = opt.scale_pos_weight;
    if (spw <= 0)
        spw = static_cast<double>(summary.train_rows - summary.train_failures) / static_cast<double>(summary.train_failures);

    auto t0 = std::chrono::steady_clock::now();
    std::vector<const xgb::DMatrix *> cache{&dtrain};
    if (dval) cache.push_back(dval.get());
    xgb::Booster booster(cache);
    set_common(booster, opt);
    booster.set("objective", "binary:logistic");
    // Early stopping on log-loss: smooth and proper. aucpr on a few thousand validation rows jumps
    // around and stopped after one round on small histories (measured; see docs/model.md).
    booster.set("eval_metric", opt.stop_metric);
    booster.set("max_depth", std::to_string(opt.max_depth));
    booster.set("scale_pos_weight", std::to_string(spw));
    booster.set("monotone_constraints", monotone_constraints());
    int keep = boost(booster, dtrain, val_usable ? dval.get() : nullptr, opt.stop_metric, opt.stop_metric == "aucpr" || opt.stop_metric == "auc", opt.rounds,
                     opt.early_stopping_rounds, opt.progress ? &progress : nullptr, "failure model");
    summary.best_iteration = keep;
    xgb::Booster final_model = booster.slice(keep);
    double train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    // Threshold and validation metrics from the kept model. Without a usable validation window the
    // threshold comes from the training rows (reported as such).
    std::vector<float> val_scores;
    std::vector<int> val_labels;
    const char *threshold_source = "validation";
    if (val_usable) {
        val_scores = final_model.predict(*dval);
        for (float l : val.label) val_labels.push_back(l > 0.5f);
    } else {
        threshold_source = "training (the validation window has no failures or no completions)";
        val_scores = final_model.predict(dtrain);
        // labels of dtrain are gone with train.x; rebuild them from train.label (kept)
        for (float l : train.label) val_labels.push_back(l > 0.5f);
    }
    summary.threshold = choose_threshold(val_scores, val_labels, opt.target_precision);
    summary.validation = evaluate_binary(val_scores, val_labels, summary.threshold.threshold);

    // Failure-class model: which failure, given a failure.
    std::array<double, kFailureClasses> class_counts{};
    for (int c : train_fail.cls) class_counts[static_cast<size_t>(c)] += 1;
    int classes_present = 0;
    for (double c : class_counts) classes_present += c > 0;
    std::optional<xgb::Booster> class_model;
    auto t_class = std::chrono::steady_clock::now();
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
        int ckeep = boost(cb, dcls, dcls_val.get(), "mlogloss", false, opt.class_rounds, opt.early_stopping_rounds,
                          opt.progress ? &progress : nullptr, "class model");
        class_model.emplace(cb.slice(ckeep));
        summary.class_model = true;
    }
    double class_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_class).count();

    // Reference rows: XGBoost's own predictions, which the loader's tree walk must reproduce.
    const Rows &ref_src = val.size() > 0 ? val : train_fail;
    nlohmann::json refs = nlohmann::json::array();
    size_t nref = std::min(opt.reference_rows, ref_src.size());
    if (nref > 0) {
        std::vector<float> rx;
        for (size_t k = 0; k < nref; ++k) {
            size_t i = k * ref_src.size() / nref;
            rx.insert(rx.end(), ref_src.x.begin() + static_cast<long>(i * kNumFeatures),
                      ref_src.x.begin() + static_cast<long>((i + 1) * kNumFeatures));
        }
        xgb::DMatrix dref(rx.data(), nref, kNumFeatures);
        auto p = final_model.predict(dref);
        std::vector<float> pc;
        if (class_model) pc = class_model->predict(dref);
        for (size_t k = 0; k < nref; ++k) {
            nlohmann::json row;
            row["x"] = features_to_json(rx.data() + k * kNumFeatures, kNumFeatures);
            row["p_fail"] = p[k];
            if (class_model) {
                nlohmann::json cls = nlohmann::json::array();
                for (int c = 0; c < kFailureClasses; ++c) cls.push_back(pc[k * kFailureClasses + static_cast<size_t>(c)]);
                row["p_class"] = cls;
            }
            refs.push_back(row);
        }
    }

    std::string model_json = final_model.save_json();
    nlohmann::json bundle;
    bundle["format"] = kBundleFormat;
    bundle["format_version"] = kBundleFormatVersion;
    {
        time_t now = time(nullptr);
        char ts[32];
        std::strftime(ts, sizeof ts, "%Y%m%dT%H%M%S", std::gmtime(&now));
        // The id names this exact model: creation time plus a hash of the trees.
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
    bundle["threshold"] = summary.threshold.threshold;
    bundle["target_precision"] = opt.target_precision;
    bundle["threshold_choice"] = {{"source", threshold_source},
                                  {"precision", summary.threshold.precision},
                                  {"recall", summary.threshold.recall},
                                  {"target_reached", summary.threshold.target_reached}};
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
                          {"tree_method", "hist"}, {"base_score", 0.5}};
    bundle["training"] = training;
    bundle["validation_metrics"] = {{"rows", summary.validation.n},
                                    {"failures", summary.validation.positives},
                                    {"roc_auc", summary.validation.roc_auc},
                                    {"pr_auc", summary.validation.pr_auc},
                                    {"threshold", summary.validation.threshold},
                                    {"precision", summary.validation.precision},
                                    {"recall", summary.validation.recall},
                                    {"f1", summary.validation.f1}};
    bundle["failure_model"] = xgb::parse_model_json(model_json);
    bundle["class_model"] = class_model ? xgb::parse_model_json(class_model->save_json()) : nlohmann::json();
    bundle["reference_rows"] = refs;

    // Never publish a bundle the plugin would refuse: load it exactly as the plugin does.
    summary.uses_script_features = ModelBundle::from_json(bundle, "the new bundle").uses_script_features();
    return bundle;
}

void write_bundle(const nlohmann::json &bundle, const std::string &path) {
    std::string text = bundle.dump();
    std::string tmp = path + ".tmp." + std::to_string(getpid());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
    size_t off = 0;
    while (off < text.size()) {
        ssize_t w = ::write(fd, text.data() + off, text.size() - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(e));
        }
        off += static_cast<size_t>(w);
    }
    if (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0) {
        int e = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        throw std::runtime_error("cannot finish " + tmp + ": " + std::strerror(e));
    }
    ::close(fd);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + std::strerror(e));
    }
}

}  // namespace jfp
