// jfp check: the site's setup, every problem with its fix (tools/check/check_report.h); exit 1 on any problem.
#include <iostream>

#include "model/util/time_util.h"
#include "tools/check/check_report.h"
#include "tools/operations/operations.h"
#include "tools/options/site_conf.h"

namespace jfp {

namespace {

struct CheckArgs {
    std::string conf, slurm_conf, slurmctld = "slurmctld", root;
    double stale_hours = 48;
    bool quiet = false;
};

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
    c->callback([a] {
        SiteCheckOptions o;
        o.conf_path = a->conf.empty() ? default_conf_path() : a->conf;
        o.slurm_conf_path = a->slurm_conf.empty() ? slurm_conf_for(o.conf_path) : a->slurm_conf;
        o.slurmctld = a->slurmctld;
        o.default_plugin_dir = JFP_SLURM_PLUGINDIR;
        o.now = naive_local_now();
        o.stale_hours = a->stale_hours;
        o.systemd_root = a->root;
        if (report_site_check(o, a->quiet, std::cout) > 0) g_exit_status = 1;
    });
}

}  // namespace jfp
