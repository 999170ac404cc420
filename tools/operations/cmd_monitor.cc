// jfp monitor: the deployed model on live traffic (tools/monitor/monitor_run.h). Exits 2 on an alert, so cron
// or a monitoring system can alert.
#include <iostream>

#include "tools/monitor/monitor_run.h"
#include "tools/operations/operations.h"
#include "tools/options/site_conf.h"

namespace jfp {

namespace {

struct MonitorArgs {
    ConfDefaults conf;  // --conf: the paths not given
    std::string since, period = "week";
    LiveMonitorOptions run;
};

}  // namespace

void add_monitor_command(Command &app) {
    auto a = std::make_shared<MonitorArgs>();
    auto *c = app.add_subcommand("monitor", "Live precision, recall, calibration and feature drift of the deployed model, "
                                            "from the plugin's feature log joined to ingested outcomes; exit 2 on alert");
    c->add_option("--db", a->run.db, "history store, with outcomes ingested since the jobs were scored");
    c->add_option("--feature-log", a->run.feature_log, "the plugin's feature log (feature_log in jfp.conf)");
    c->add_option("--model", a->run.model, "the deployed model bundle (model in jfp.conf): its training window and target");
    c->add_option("--since", a->since, "only jobs scored at or after this time");
    c->add_option("--period", a->period, "rows per day or per week")->one_of({"day", "week"})->capture_default_str();
    c->add_option("--min-precision", a->run.min_precision, "alert below this live precision (default: the bundle's target)");
    c->add_option("--max-psi", a->run.max_psi, "alert when a feature's PSI passes this")->capture_default_str();
    c->add_option("--min-flagged", a->run.min_flagged, "flagged jobs with an outcome needed to judge precision")->capture_default_str();
    c->add_option("--min-scored", a->run.min_scored, "scored jobs needed to judge drift (PSI)")->capture_default_str();
    c->add_option("--min-users", a->run.min_users,
                  "distinct users an alert needs behind its figure; from 2, the alert must also hold with any one "
                  "user's jobs left out")
        ->capture_default_str();
    c->add_option("--user-cap", a->run.user_cap, "each user's jobs count as at most this many in the per-user figures")
        ->positive()
        ->capture_default_str();
    c->add_flag("--json", a->run.json, "print one JSON object");
    c->add_option("--metrics-file", a->run.metrics_file,
                  "also write live precision, recall and drift for node_exporter's textfile collector (Prometheus text)");
    a->conf.add_option(c);
    c->callback([a] {
        a->conf.fill(a->run.db, ConfPath::Store, "--db", true);
        a->conf.fill(a->run.feature_log, ConfPath::FeatureLog, "--feature-log", true);
        a->conf.fill(a->run.model, ConfPath::Model, "--model", true);
        a->run.since = a->since.empty() ? 0 : parse_time_option(a->since, "--since");
        a->run.weekly = a->period == "week";
        if (run_live_monitor(a->run, std::cout) > 0) g_exit_status = 2;
    });
}

}  // namespace jfp
