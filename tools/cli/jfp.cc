// jfp: the offline command line. Subcommands live in tools/commands/ and tools/operations/, cmd_*.cc, one each.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "jfp_config.h"
#include "tools/commands/commands.h"
#include "tools/operations/operations.h"
#include "model/util/text.h"
#include "tools/cli/help_format.h"
#include "tools/terminal/terminal_guard.h"

int main(int argc, char **argv) {
    // Before anything is printed: on a terminal, all of standard output passes the one escaper.
    jfp::TerminalGuard guard;
    CLI::App app{"jfp: predicts Slurm job failure at submission.\n"
                 "Ingests sacct exports, trains and evaluates the model job_submit/jfp loads."};
    app.require_subcommand(0, 1);
    app.fallthrough(false);
    bool version = false;
    app.add_flag("--version", version, "print the version and exit");
    app.formatter(jfp::help_formatter());  // subcommands inherit it
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
    jfp::add_synth_command(app);
    jfp::name_subcommand_groups(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        // CLI11's own codes (105 for a bad value, 109 for an extra argument...) would collide with nothing
        // documented and say nothing to a script: a usage error is 64 (sysexits' EX_USAGE); --help is 0.
        return app.exit(e) == 0 ? 0 : 64;
    } catch (const std::exception &e) {
        // A message may quote what a user wrote (a job name, a line of an export): escaped once more here.
        std::fprintf(stderr, "jfp: error: %s\n", jfp::printable(e.what(), std::string::npos, true).c_str());
        return 1;
    }
    if (version) {
        std::printf("jfp %s (built for Slurm %s)\n", PACKAGE_VERSION, JFP_SLURM_VERSION);
        return 0;
    }
    if (app.get_subcommands().empty()) {
        std::fputs(app.help().c_str(), stdout);
        return 0;
    }
    return jfp::g_exit_status;
}
