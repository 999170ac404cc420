// jfp report: one self-contained HTML file an admin reads before turning on reject (what it holds:
// tools/report/report_page.h; the work: tools/report/report_run.h).
#include <memory>

#include "model/script/module_index.h"
#include "tools/commands/commands.h"
#include "tools/modules/module_index_file.h"
#include "tools/options/site_conf.h"
#include "tools/report/report_run.h"

namespace jfp {

namespace {

struct ReportArgs {
    ConfDefaults conf;  // --conf: the paths not given
    std::string db, model, after, output, feature_log, since, slurm_conf;
    std::string script_archive, modules_index;  // the script findings section
    double threshold = -1;
};

// The options resolved into the report's inputs, then the report.
void report(const ReportArgs &a) {
    ReportInputs in;
    in.db = a.db;
    in.model = a.model;
    in.after = parse_time_option(a.after, "--after");
    in.threshold = a.threshold;
    in.billing = load_billing_conf(a.slurm_conf);
    in.feature_log = a.feature_log;
    in.since = a.feature_log.empty() || a.since.empty() ? 0 : parse_time_option(a.since, "--since");
    in.script_archive = a.script_archive;
    std::unique_ptr<ModuleIndex> index;
    if (!a.script_archive.empty() && !a.modules_index.empty())
        index = std::make_unique<ModuleIndex>(read_module_index(a.modules_index));
    in.modules = index.get();
    run_report(in, a.output);
}

}  // namespace

void add_report_command(Command &app) {
    auto a = std::make_shared<ReportArgs>();
    auto *c = app.add_subcommand("report", "Write a self-contained HTML evaluation report (curves, calibration, thresholds, "
                                           "costs, per-partition and per-class tables)");
    c->add_option("--db", a->db, "history store");
    c->add_option("--model", a->model, "model bundle");
    c->add_option("--after", a->after, "first submit time to evaluate (jobs before it are history only)")->required();
    c->add_option("-o,--output", a->output, "HTML file to write")->required();
    c->add_option("--threshold", a->threshold, "decision threshold (default: the bundle's)");
    c->add_option("--slurm-conf", a->slurm_conf, kSlurmConfHelp);
    c->add_option("--feature-log", a->feature_log, "the plugin's feature log: adds the live section (as jfp monitor)");
    c->add_option("--since", a->since, "with --feature-log: live jobs scored at or after this time");
    c->add_option("--script-archive", a->script_archive, "the plugin's script archive: adds what the jobs' scripts showed "
                                                          "(ignored #SBATCH lines, missing modules) against their outcomes");
    c->add_option("--modules-index", a->modules_index, "with --script-archive: the module index to check module loads against");
    a->conf.add_option(c);
    c->callback([a] {
        a->conf.fill(a->db, ConfPath::Store, "--db", true);
        a->conf.fill(a->model, ConfPath::Model, "--model", true);
        report(*a);
    });
}

}  // namespace jfp
