// jfp check: the site's setup, every problem with its fix (tools/check/site_check.h); exit 1 on any problem.
#include <cstdio>

#include "model/util/text.h"
#include "model/util/time_util.h"
#include "tools/check/site_check.h"
#include "tools/operations/operations.h"
#include "tools/options/site_conf.h"

namespace jfp {

namespace {

struct CheckArgs {
    std::string conf, slurm_conf, slurmctld = "slurmctld", root;
    double stale_hours = 48;
    bool quiet = false;
};

void run_check(const CheckArgs &a) {
    SiteCheckOptions o;
    o.conf_path = a.conf.empty() ? default_conf_path() : a.conf;
    o.slurm_conf_path = a.slurm_conf.empty() ? slurm_conf_for(o.conf_path) : a.slurm_conf;
    o.slurmctld = a.slurmctld;
    o.default_plugin_dir = JFP_SLURM_PLUGINDIR;
    o.now = naive_local_now();
    o.stale_hours = a.stale_hours;
    o.systemd_root = a.root;
    size_t problems = 0, warnings = 0;
    std::printf("jfp check: %s, %s\n", o.conf_path.c_str(), o.slurm_conf_path.c_str());
    for (const Finding &f : check_site(o)) {
        const char *tag = f.level == Finding::Level::Ok ? "ok" : f.level == Finding::Level::Warning ? "warning" : "PROBLEM";
        problems += f.level == Finding::Level::Problem;
        warnings += f.level == Finding::Level::Warning;
        if (a.quiet && f.level == Finding::Level::Ok) continue;
        std::printf("  %-8s %s\n", tag, printable(f.what, 2000).c_str());
        if (!f.fix.empty()) std::printf("  %-8s fix: %s\n", "", printable(f.fix, 2000).c_str());
    }
    std::printf("jfp check: %zu problem%s, %zu warning%s\n", problems, problems == 1 ? "" : "s", warnings,
                warnings == 1 ? "" : "s");
    if (problems) g_exit_status = 1;
}

}  // namespace

void add_check_command(Command &app) {
    auto a = std::make_shared<CheckArgs>();
    auto *c = app.add_subcommand("check", "Check the site's setup as slurmctld will meet it: every problem with its fix; exit 1 on any");
    c->add_option("--conf", a->conf, "jfp.conf (default: beside $SLURM_CONF, else /etc/slurm/jfp.conf)");
    c->add_option("--slurm-conf", a->slurm_conf, "slurm.conf (default: $SLURM_CONF, else beside jfp.conf)");
    c->add_option("--slurmctld", a->slurmctld, "the slurmctld to compare the plugin's Slurm release with")->capture_default_str();
    c->add_option("--stale-hours", a->stale_hours, "a store whose latest job ended longer ago is a problem")
        ->capture_default_str()
        ->range(1.0, 1e6);
    c->add_option("--root", a->root, "look for the jfp systemd units under this directory, as systemctl --root");
    c->add_flag("-q,--quiet", a->quiet, "print only warnings and problems");
    c->callback([a] { run_check(*a); });
}

}  // namespace jfp
