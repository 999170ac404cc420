// jfp simulate: what the current jfp.conf and model would have done to the jobs submitted since a time,
// per user and partition, with the core-hours at stake (the work: tools/simulate/simulation.h).
#include <memory>

#include "tools/commands/commands.h"
#include "tools/modules/module_index_file.h"
#include "tools/options/site_conf.h"
#include "tools/simulate/simulation.h"

namespace jfp {

namespace {

struct SimulateArgs {
    ConfDefaults conf;
    std::string conf_path, db, model, after, mode, jobs_csv;
    size_t top = 15;
};

// The options resolved: paths from jfp.conf, its policy with --mode, the module index it names.
SimulateOptions simulate_options(SimulateArgs &a) {
    a.conf.fill(a.db, ConfPath::Store, "--db", true);
    a.conf.fill(a.model, ConfPath::Model, "--model", true);
    SimulateOptions o;
    o.conf_path = a.conf_path.empty() ? default_conf_path() : a.conf_path;
    o.config = *load_site_conf(o.conf_path, true);
    if (!a.mode.empty()) o.config.mode = *parse_mode(a.mode);
    o.mode_overridden = !a.mode.empty();
    o.after = parse_time_option(a.after, "--after");
    o.slurm_conf = slurm_conf_for(o.conf_path);
    o.db = a.db;
    o.model = a.model;
    o.jobs_csv = a.jobs_csv;
    o.top = a.top;
    if (!o.config.script_archive_path.empty())
        o.modules = optional_module_index(o.config.modules_index, "jfp.conf sets no modules_index", o.why_no_modules);
    return o;
}

}  // namespace

void add_simulate_command(Command &app) {
    auto a = std::make_shared<SimulateArgs>();
    auto *c = app.add_subcommand("simulate",
                                 "What jfp.conf and the model would have done to the jobs since a time: warned and rejected, "
                                 "per user and partition, with the core-hours at stake");
    c->add_option("--after", a->after, "first submit time to replay")->required();
    c->add_option("--mode", a->mode, "simulate this mode instead of jfp.conf's (e.g. reject before switching to it)")
        ->one_of({"off", "shadow", "warn", "annotate", "reject"});
    c->add_option("--db", a->db, "history store (default: jfp.conf's store)");
    c->add_option("--model", a->model, "model bundle (default: jfp.conf's model)");
    c->add_option("--jobs", a->jobs_csv, "also write every job's score and action to this CSV");
    c->add_option("--top", a->top, "rows per table (at least 1)")->capture_default_str()->range(1, 1000000);
    c->add_option("--conf", a->conf_path, "the jfp.conf whose policy to replay (default: beside $SLURM_CONF, else /etc/slurm/jfp.conf)");
    c->callback([a] {
        a->conf = ConfDefaults(a->conf_path);
        run_simulate(simulate_options(*a));
    });
}

}  // namespace jfp
