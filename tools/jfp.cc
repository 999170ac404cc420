// jfp: the offline command line. Subcommands live in cmd_*.cc, one each.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "jfp_config.h"
#include "model/config.h"

int main(int argc, char **argv) {
    CLI::App app{"jfp: predicts Slurm job failure at submission. Trains the model job_submit/jfp loads."};
    app.require_subcommand(0, 1);
    bool version = false;
    app.add_flag("--version", version, "print the version and exit");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        return app.exit(e);
    }
    if (version) {
        std::printf("jfp %s (built for Slurm %s)\n", PACKAGE_VERSION, JFP_SLURM_VERSION);
        return 0;
    }
    std::fputs(app.help().c_str(), stdout);
    return 0;
}
