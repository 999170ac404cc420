// jfp eval: how well the model would have done on jobs submitted after a time, beside the history rules,
// opening with the verdict (the work: tools/evaluate/model_evaluation.h).
#include <memory>

#include "tools/commands/commands.h"
#include "tools/evaluate/model_evaluation.h"
#include "tools/options/site_conf.h"

namespace jfp {

namespace {

struct EvalArgs : EvalOptions {
    ConfDefaults conf;  // --conf: the paths not given
    std::string after_text, slurm_conf;
};

}  // namespace

void add_eval_command(Command &app) {
    auto a = std::make_shared<EvalArgs>();
    auto *c = app.add_subcommand("eval", "Evaluate a model on jobs submitted at or after a time, beside the history rules, with a verdict");
    c->add_option("--db", a->db, "history store");
    c->add_option("--model", a->model, "model bundle");
    c->add_option("--after", a->after_text, "first submit time to evaluate (jobs before it are history only)")->required();
    c->add_option("--threshold", a->threshold, "decision threshold (default: the bundle's)");
    c->add_option("--script-archive", a->script_archive,
                  "the plugin's script archive: script features for the jobs it kept (as the model was trained)");
    c->add_option("--slurm-conf", a->slurm_conf, kSlurmConfHelp);
    c->add_option("--refused", a->refused,
                  "numbers of wrongly refused jobs at which to compare ranking by p and by expected waste (default: 10 100 500)")
        ->positive();
    c->add_flag("--json", a->json, "print one JSON object");
    a->conf.add_option(c);
    c->callback([a] {
        a->conf.fill(a->db, ConfPath::Store, "--db", true);
        a->conf.fill(a->model, ConfPath::Model, "--model", true);
        EvalOptions o = *a;
        o.after = parse_time_option(a->after_text, "--after");
        o.billing = load_billing_conf(a->slurm_conf);
        run_eval(o);
    });
}

}  // namespace jfp
