// jfp synth: a synthetic sacct export with realistic failure clustering, for tests and benchmarks (the work:
// tools/simulate/synth.h).
#include <memory>

#include "tools/commands/commands.h"
#include "tools/simulate/synth.h"

namespace jfp {

namespace {

struct SynthArgs {
    SynthOptions opt;
    std::string output = "-";
    bool no_steps = false;
    bool quiet = false;
};

}  // namespace

void add_synth_command(Command &app) {
    auto a = std::make_shared<SynthArgs>();
    auto *c = app.add_subcommand("synth", "Write a synthetic sacct export (--parsable2 with header) for tests and benchmarks");
    c->add_option("--jobs", a->opt.jobs, "number of jobs (array tasks count one each)")->capture_default_str();
    c->add_option("--users", a->opt.users, "number of users (0: jobs/800)")->capture_default_str();
    c->add_option("--seed", a->opt.seed, "random seed")->capture_default_str();
    c->add_option("--start", a->opt.start, "first day")->capture_default_str();
    c->add_option("--days", a->opt.days, "days covered (0: jobs/4000, at least 14)")->capture_default_str();
    c->add_option("--cluster", a->opt.cluster, "cluster name")->capture_default_str();
    c->add_flag("--trace-style", a->opt.trace_style,
                "look like a converted trace: no ReqNodes/ReqMem/ReqTRES/SubmitLine, no steps, names like app123");
    c->add_flag("--no-steps", a->no_steps, "no .batch/.extern step rows");
    c->add_option("-o,--output", a->output, "file to write (- for stdout)")->capture_default_str();
    c->add_flag("-q,--quiet", a->quiet, "no summary on stderr");
    c->callback([a] {
        a->opt.steps = !a->no_steps;
        write_synthetic_export(a->opt, a->output, a->quiet);
    });
}

}  // namespace jfp
