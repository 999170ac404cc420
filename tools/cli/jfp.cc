// jfp: the offline command line. Subcommands live in tools/commands/ and tools/operations/, cmd_*.cc, one
// each; CLI11 itself only in tools/options/command_line.cc.
#include <string>

#include "jfp_config.h"
#include "tools/commands/commands.h"
#include "tools/operations/operations.h"
#include "tools/options/cli_options.h"
#include "tools/options/command_line.h"
#include "tools/terminal/terminal_guard.h"

int main(int argc, char **argv) {
    // Before anything is printed: on a terminal, all of standard output passes the one escaper.
    jfp::TerminalGuard guard;
    jfp::CommandLine cli("jfp: predicts Slurm job failure at submission.\n"
                         "Ingests sacct exports, trains and evaluates the model job_submit/jfp loads.");
    jfp::Command &app = cli.root();
    // In the order a site uses them: history in, model out, judged, published, watched; then the tools.
    jfp::add_ingest_command(app);
    jfp::add_train_command(app);
    jfp::add_eval_command(app);
    jfp::add_report_command(app);
    jfp::add_simulate_command(app);
    jfp::add_publish_command(app);
    jfp::add_monitor_command(app);
    jfp::add_status_command(app);
    jfp::add_check_command(app);
    jfp::add_parity_command(app);
    jfp::add_predict_command(app);
    jfp::add_scripts_command(app);
    jfp::add_modules_command(app);
    jfp::add_prune_command(app);
    jfp::add_export_command(app);
    jfp::add_finish_bundle_command(app);
    jfp::add_synth_command(app);
    return cli.run(argc, argv, [] { return jfp::g_exit_status; },
                   std::string("jfp ") + PACKAGE_VERSION + " (built for Slurm " + JFP_SLURM_VERSION + ")");
}
