// jfp predict: what the plugin would have said, job by job, for jobs submitted after a time.
#include <cstdio>
#include <memory>
#include <fstream>

#include "model/policy/advice.h"
#include "model/policy/explain.h"
#include "model/policy/job_price.h"
#include "model/policy/user_message.h"
#include "model/scoring/feature_sweep.h"
#include "model/scoring/model_bundle.h"
#include "model/util/text.h"
#include "model/util/time_util.h"
#include "tools/commands/commands.h"
#include "tools/options/site_conf.h"

namespace jfp {

namespace {

struct PredictArgs {
    ConfDefaults conf;  // --conf: the paths not given
    std::string db, model, after, output, script_archive, slurm_conf;
    bool explain = false;      // messages for flagged jobs
    bool explain_all = false;  // for every job, as if it were flagged (what the message replay checks)
};

void run_predict(const PredictArgs &a) {
    int64_t after = parse_time_option(a.after, "--after");
    auto bundle = ModelBundle::load_file(a.model);
    HistoryStore store(a.db, HistoryStore::Access::ReadOnly);
    ClusterDefaults billing = load_billing_conf(a.slurm_conf);
    std::ofstream out(a.output);
    if (!out) throw std::runtime_error("cannot write " + a.output);
    out << "JobIDRaw,Cluster,User,JobName,Submit,State,p_fail,p_FAILED,p_TIMEOUT,p_OUT_OF_MEMORY,p_NODE_FAIL,"
           "predicted_class,flagged,cost,expected_waste,cost_unit" << (a.explain || a.explain_all ? ",message" : "") << "\n";
    uint64_t n = 0, flagged = 0;
    char buf[256];
    std::unique_ptr<ArchivedScripts> scripts;
    if (!a.script_archive.empty()) scripts = std::make_unique<ArchivedScripts>(a.script_archive);
    sweep_submissions(store, [&](const Submission &sub) {
        const JobRecord &j = sub.job;
        const FeatureVector &x = sub.x;
        if (j.submit < after) return;
        Score s = bundle.score(x);
        bool flag = s.p_fail >= bundle.threshold();
        out << csv_field(j.job_key) << ',' << csv_field(j.cluster) << ',' << csv_field(j.user) << ','
            << csv_field(j.name) << ',' << format_sacct_time(j.submit) << ',' << outcome_name(j.outcome);
        std::snprintf(buf, sizeof buf, ",%.6f,%.6f,%.6f,%.6f,%.6f,%s,%d", s.p_fail, s.p_fail * s.p_class[0],
                      s.p_fail * s.p_class[1], s.p_fail * s.p_class[2], s.p_fail * s.p_class[3],
                      outcome_name(kFailureClassOutcomes[s.top_class]), flag ? 1 : 0);
        out << buf;
        // What the job asks for in the site's units, as decide_by = waste prices it (memory never below what
        // the job's earlier runs used); empty when no time limit bounds it.
        WasteInput w = price_job(sub.request, sub.history, billing, bundle.waste_budget(), bundle.waste_unit());
        if (known(w.cost)) std::snprintf(buf, sizeof buf, ",%.4f,%.4f,%s", w.cost, w.cost * static_cast<double>(s.p_fail), w.unit);
        else std::snprintf(buf, sizeof buf, ",,,%s", w.unit);
        out << buf;
        if (a.explain && !a.explain_all && !flag) {
            out << ',';  // not flagged: a user would have read nothing
        } else if (a.explain || a.explain_all) {
            MessageParts m;
            m.p_fail = s.p_fail;
            m.top_class = s.top_class;
            m.why = explain(bundle, x, sub.request, sub.history, s.top_class);
            m.what = advice(s.top_class, sub.request, sub.history);
            out << ',' << csv_field(user_message(m));
        }
        out << '\n';
        ++n;
        flagged += flag;
    }, scripts.get());
    out.close();
    if (!out) throw std::runtime_error("error writing " + a.output);
    std::printf("jfp predict: %llu jobs submitted from %s scored with model %s; %llu at or above threshold %.4f -> %s\n",
                static_cast<unsigned long long>(n), format_sacct_time(after).c_str(), bundle.model_id().c_str(),
                static_cast<unsigned long long>(flagged), bundle.threshold(), a.output.c_str());
}

}  // namespace

void add_predict_command(Command &app) {
    auto a = std::make_shared<PredictArgs>();
    auto *c = app.add_subcommand("predict",
                                 "Score every job submitted at or after a time, exactly as the plugin would have at "
                                 "its submission; write CSV");
    c->add_option("--db", a->db, "history store");
    c->add_option("--model", a->model, "model bundle");
    c->add_option("--after", a->after, "first submit time to score (YYYY-MM-DD[THH:MM:SS])")->required();
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
        run_predict(*a);
    });
}

}  // namespace jfp
