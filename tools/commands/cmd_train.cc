// jfp train: the model bundle from the history store (the work: tools/train/train_run.h).
#include <memory>
#include <string>

#include "tools/commands/commands.h"
#include "tools/options/site_conf.h"
#include "tools/train/train_run.h"

namespace jfp {

namespace {

struct TrainArgs : TrainRun {
    ConfDefaults conf;  // --conf: the paths not given
    std::string before, slurm_conf;
    double train_fraction = 0;
    bool no_progress = false;
};

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
        TrainRun r = *a;
        if (!a->before.empty()) r.opt.before = parse_time_option(a->before, "--before");
        if (a->train_fraction > 0) r.opt.train_fraction = a->train_fraction;
        r.opt.progress = !a->no_progress;
        r.opt.billing = load_billing_conf(a->slurm_conf);
        run_train(r);
    });
}

}  // namespace jfp
