// jfp predict: what the plugin would have said, job by job, for jobs submitted after a time (the work:
// tools/score/predictions.h).
#include <memory>

#include "tools/commands/commands.h"
#include "tools/options/site_conf.h"
#include "tools/score/predictions.h"

namespace jfp {

namespace {

struct PredictArgs : PredictOptions {
    ConfDefaults conf;  // --conf: the paths not given
    std::string after_text, slurm_conf;
};

}  // namespace

void add_predict_command(Command &app) {
    auto a = std::make_shared<PredictArgs>();
    auto *c = app.add_subcommand("predict",
                                 "Score every job submitted at or after a time, exactly as the plugin would have at "
                                 "its submission; write CSV");
    c->add_option("--db", a->db, "history store");
    c->add_option("--model", a->model, "model bundle");
    c->add_option("--after", a->after_text, "first submit time to score (YYYY-MM-DD[THH:MM:SS])")->required();
    c->add_option("--output", a->output, "CSV file to write")->required();
    c->add_option("--script-archive", a->script_archive,
                  "the plugin's script archive: script features for the jobs it kept (as the plugin saw them)");
    c->add_option("--slurm-conf", a->slurm_conf, kSlurmConfHelp);
    auto *ex = c->add_flag("--explain", a->explain,
                           "add a 'message' column: what a user would have read at submission in warn mode (empty for "
                           "jobs below the threshold)");
    c->add_flag("--explain-all", a->explain_all,
                "the message for every job, as if each were flagged (to check the reasons themselves)")
        ->excludes(ex);
    c->footer("Columns: JobIDRaw,Cluster,User,JobName,Submit,State,p_fail,p_FAILED,p_TIMEOUT,p_OUT_OF_MEMORY,"
              "p_NODE_FAIL,predicted_class,flagged,cost,expected_waste,cost_unit[,message]. p_<CLASS> = p_fail x "
              "P(class | failure); cost = what the job asks for x its time limit in cost_unit (billing-hours by slurm.conf's "
              "TRESBillingWeights, else core-hours; empty when no limit bounds it), expected_waste = p_fail x cost.");
    a->conf.add_option(c);
    c->callback([a] {
        a->conf.fill(a->db, ConfPath::Store, "--db", true);
        a->conf.fill(a->model, ConfPath::Model, "--model", true);
        PredictOptions o = *a;
        o.after = parse_time_option(a->after_text, "--after");
        o.billing = load_billing_conf(a->slurm_conf);
        run_predict(o);
    });
}

}  // namespace jfp
