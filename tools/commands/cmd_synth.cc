// jfp synth: a synthetic sacct export with realistic failure clustering, for tests and benchmarks.
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "tools/commands/commands.h"
#include "tools/ingest/synth.h"

namespace jfp {

namespace {

struct SynthArgs {
    SynthOptions opt;
    std::string output = "-";
    bool no_steps = false;
    bool quiet = false;
};

void run_synth(SynthArgs &a) {
    a.opt.steps = !a.no_steps;
    std::FILE *out = a.output == "-" ? stdout : std::fopen(a.output.c_str(), "wb");
    if (!out) throw std::runtime_error("cannot write " + a.output + ": " + std::strerror(errno));
    static char buf[1 << 20];
    std::setvbuf(out, buf, _IOFBF, sizeof buf);
    SynthStats s = generate_workload(a.opt, out);
    if (std::fflush(out) != 0 || (out != stdout && std::fclose(out) != 0))
        throw std::runtime_error("error writing " + a.output + ": " + std::strerror(errno));
    if (a.quiet) return;
    auto pct = [&](uint64_t n) { return 100.0 * static_cast<double>(n) / static_cast<double>(s.jobs); };
    std::fprintf(stderr,
                 "jfp synth: %llu jobs (%llu rows): completed %.1f%%, failed %.1f%%, timeout %.1f%%, out of memory "
                 "%.2f%%, node fail %.3f%%, cancelled %.1f%%\n",
                 static_cast<unsigned long long>(s.jobs), static_cast<unsigned long long>(s.rows), pct(s.completed),
                 pct(s.failed), pct(s.timeout), pct(s.oom), pct(s.node_fail), pct(s.cancelled));
    std::fprintf(stderr,
                 "jfp synth: after a failed run of a user+name, the next finished run failed %.1f%% of the time; first "
                 "runs failed %.1f%%\n",
                 s.after_fail ? 100.0 * static_cast<double>(s.fail_after_fail) / static_cast<double>(s.after_fail) : 0.0,
                 s.first_runs ? 100.0 * static_cast<double>(s.first_run_fail) / static_cast<double>(s.first_runs) : 0.0);
}

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
    c->callback([a] { run_synth(*a); });
}

}  // namespace jfp
