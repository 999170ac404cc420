// jfp train: the model bundle from the history store.
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <string>

#include "model/policy/user_message.h"
#include "tools/commands/commands.h"
#include "tools/options/site_conf.h"
#include "tools/train/trainer.h"

namespace jfp {

namespace {

// A window's span as read: "7 minutes", "5.5 hours", "12.0 days".
std::string span_text(double days) {
    char b[48];
    if (days >= 1) std::snprintf(b, sizeof b, "%.1f days", days);
    else if (days * 24 >= 1) std::snprintf(b, sizeof b, "%.1f hours", days * 24);
    else std::snprintf(b, sizeof b, "%.0f minutes", days * 1440);
    return b;
}

struct TrainArgs {
    ConfDefaults conf;  // --conf: the paths not given
    std::string db, out, before, slurm_conf;
    double train_fraction = 0;
    TrainOptions opt;
    bool no_progress = false;
    bool json = false;
};

void run_train(TrainArgs &a) {
    if (!a.before.empty()) a.opt.before = parse_time_option(a.before, "--before");
    if (a.train_fraction > 0) a.opt.train_fraction = a.train_fraction;
    a.opt.progress = !a.no_progress;
    a.opt.billing = load_billing_conf(a.slurm_conf);
    HistoryStore store(a.db, HistoryStore::Access::ReadOnly);
    TrainSummary s;
    auto bundle = train_bundle(store, a.opt, s);
    write_bundle(bundle, a.out);
    if (a.json) {
        nlohmann::json j = {{"model", a.out},
                            {"model_id", s.model_id},
                            {"training", bundle["training"]},
                            {"validation_metrics", bundle["validation_metrics"]},
                            {"threshold", bundle["threshold"]},
                            {"threshold_choice", bundle["threshold_choice"]},
                            {"kind", bundle["kind"]},
                            {"model_choice", bundle["model_choice"]},
                            {"waste_choice", bundle["waste_choice"]}};
        std::printf("%s\n", j.dump(2).c_str());
        return;
    }
    std::printf("jfp train: wrote %s (model %s)\n", a.out.c_str(), s.model_id.c_str());
    std::printf("  training rows   %llu (%llu failed), window %s .. %s\n", static_cast<unsigned long long>(s.train_rows),
                static_cast<unsigned long long>(s.train_failures),
                bundle["training"]["train_window"][0].get<std::string>().c_str(),
                bundle["training"]["train_window"][1].get<std::string>().c_str());
    std::printf("  validation rows %llu (%llu failed), window %s .. %s\n", static_cast<unsigned long long>(s.val_rows),
                static_cast<unsigned long long>(s.val_failures),
                bundle["training"]["validation_window"][0].get<std::string>().c_str(),
                bundle["training"]["validation_window"][1].get<std::string>().c_str());
    if (!a.opt.feature_log.empty())
        std::printf("  logged vectors  %llu jobs used the plugin's features\n", static_cast<unsigned long long>(s.logged_vectors));
    if (!a.opt.script_archive.empty())
        std::printf("  script archive  %llu jobs had their archived script scanned; the model %s on script features\n",
                    static_cast<unsigned long long>(s.archived_scripts), s.uses_script_features ? "splits" : "does not split");
    std::printf("  chose           %s\n", s.comparison.verdict.c_str());
    if (s.kind == "tree") std::printf("  rounds kept     %d\n", s.best_iteration);
    std::printf("  class model     %s%s%s\n", s.class_model ? "yes" : "no (", s.class_model_note.c_str(),
                s.class_model ? "" : "): class frequencies instead");
    std::printf("  %-15s ROC-AUC %.3f  PR-AUC %.3f\n", s.comparison.rows_name == "training window" ? "training window" : "validation",
                s.validation.roc_auc, s.validation.pr_auc);
    std::printf("  threshold       %.4f: precision %.3f (at least %.3f at %.0f%% confidence) recall %.3f%s\n",
                s.threshold.threshold, s.threshold.precision, s.threshold.precision_lower, kPrecisionConfidence * 100,
                s.threshold.recall,
                s.threshold.target_reached ? ""
                                           : " (target precision not reached: best-F1 threshold instead)");
    const BudgetChoice &w = s.waste;
    const char *unit = s.waste_unit.c_str();
    if (w.limit_met)
        std::printf("  waste budget    %s %s (decide_by = waste): refuses %.1f completed jobs a week (at most %.1f at 95%% "
                    "confidence; limit %g), catching %s of %s failed %s (%.1f%%)\n",
                    amount_text(w.budget).c_str(), unit, w.per_week, w.per_week_upper, w.limit_per_week,
                    amount_text(w.at_budget.burnt_caught).c_str(), amount_text(w.at_budget.burnt_failed).c_str(), unit,
                    100 * w.at_budget.share());
    else if (w.weeks > 0 && poisson_upper(0) / (w.weeks / 2) > w.limit_per_week)
        std::printf("  waste budget    none: the window spans %s, too short to bound refusals at %g a week (even "
                    "none refused bounds each half at %.0f a week at 95%% confidence); train on a longer history or "
                    "raise --refused-per-week; decide_by = waste then needs waste_budget in jfp.conf\n",
                    span_text(w.span_days).c_str(), w.limit_per_week,
                    poisson_upper(0) / (w.weeks / 2));
    else
        std::printf("  waste budget    none: no budget keeps refused completed jobs within %g a week at 95%% confidence "
                    "(--refused-per-week); decide_by = waste then needs waste_budget in jfp.conf\n",
                    w.limit_per_week);
}

}  // namespace

void add_train_command(Command &app) {
    auto a = std::make_shared<TrainArgs>();
    auto *c = app.add_subcommand("train", "Train the failure model and write the model bundle the plugin loads");
    c->add_option("--db", a->db, "history store");
    c->add_option("--out", a->out, "model bundle to write (atomically replaced)")->required();
    auto *before = c->add_option("--before", a->before, "train only on jobs submitted and ended before this time");
    c->add_option("--train-fraction", a->train_fraction, "or: train on the earliest fraction of finished jobs (e.g. 0.7)")
        ->excludes(before)
        ->range(0.0, 1.0);
    c->add_option("--validation-fraction", a->opt.validation_fraction,
                  "latest part of the training window used for early stopping and the threshold")
        ->capture_default_str()
        ->range(0.01, 0.5);
    c->add_option("--nthread", a->opt.nthread, "XGBoost threads (0: all cores)")->capture_default_str();
    c->add_option("--rounds", a->opt.rounds, "maximum boosting rounds")->capture_default_str()->range(1, 100000);
    c->add_option("--early-stopping", a->opt.early_stopping_rounds, "stop after this many rounds without improvement")
        ->capture_default_str();
    c->add_option("--stop-metric", a->opt.stop_metric, "validation metric for early stopping")
        ->capture_default_str()
        ->one_of({"logloss", "aucpr", "auc"});
    c->add_option("--max-depth", a->opt.max_depth, "tree depth")->capture_default_str()->range(1, 16);
    c->add_option("--eta", a->opt.eta, "learning rate")->capture_default_str()->range(0.001, 1.0);
    c->add_option("--subsample", a->opt.subsample, "share of rows each tree samples (1: all, deterministic)")
        ->capture_default_str()
        ->range(0.05, 1.0);
    c->add_option("--colsample", a->opt.colsample, "share of features each tree samples (1: all)")
        ->capture_default_str()
        ->range(0.05, 1.0);
    c->add_option("--scale-pos-weight", a->opt.scale_pos_weight, "weight of failed jobs (0: #completed/#failed)")
        ->capture_default_str();
    c->add_option("--target-precision", a->opt.target_precision,
                  "precision the decision threshold must reach on the validation window")
        ->capture_default_str()
        ->range(0.01, 1.0);
    c->add_option("--seed", a->opt.seed, "random seed")->capture_default_str();
    c->add_option("--refused-per-week", a->opt.refused_per_week,
                  "completed jobs a week the waste budget may refuse on validation, by its 95% upper bound (decide_by = waste)")
        ->capture_default_str()
        ->range(0.1, 1e6);
    c->add_option("--slurm-conf", a->slurm_conf, kSlurmConfHelp);
    c->add_option("--weight", a->opt.weight,
                  "sample weights of the failure model's rows: none, cost (what a job asks for) or log-cost (docs/model.md, "
                  "\"Deciding by waste\")")
        ->capture_default_str()
        ->one_of({"none", "cost", "log-cost"});
    c->add_option("--ignore-feature", a->opt.ignore_features,
                  "a feature the model may not learn from (repeatable; names in docs/features.md)");
    c->add_option("--kind", a->opt.kind,
                  "auto: the tree model when it beats the best history rule on validation, else the rule; tree or rules "
                  "to insist")
        ->capture_default_str()
        ->one_of({"auto", "tree", "rules"});
    c->add_option("--feature-log", a->opt.feature_log,
                  "the plugin's feature log (feature_log in jfp.conf): use the vectors it logged for jobs that carry "
                  "its token");
    c->add_option("--script-archive", a->opt.script_archive,
                  "the plugin's script archive (script_archive in jfp.conf): script features for the jobs it kept");
    c->add_flag("--no-progress", a->no_progress, "no progress bar (it is drawn only on a terminal anyway)");
    c->add_flag("--json", a->json, "print the summary as JSON");
    a->conf.add_option(c);
    c->callback([a] {
        a->conf.fill(a->db, ConfPath::Store, "--db", true);
        run_train(*a);
    });
}

}  // namespace jfp
