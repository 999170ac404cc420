// jfp status: the plugin's metrics file for a person (tools/monitor/plugin_status.h); exit 1 when stale.
#include <ctime>
#include <iostream>

#include "tools/monitor/plugin_status.h"
#include "tools/operations/operations.h"
#include "tools/options/site_conf.h"

namespace jfp {

namespace {

struct StatusArgs {
    ConfDefaults conf;
    std::string metrics;
};

}  // namespace

void add_status_command(Command &app) {
    auto a = std::make_shared<StatusArgs>();
    auto *c = app.add_subcommand("status", "What the plugin in slurmctld is doing, from its metrics file: model, history, decisions, latency");
    c->add_option("--metrics", a->metrics, "the plugin's metrics file (metrics_file in jfp.conf)");
    a->conf.add_option(c);
    c->callback([a] {
        a->conf.fill(a->metrics, ConfPath::Metrics, "--metrics", true);
        if (!report_plugin_status(a->metrics, static_cast<double>(std::time(nullptr)), std::cout)) g_exit_status = 1;
    });
}

}  // namespace jfp
