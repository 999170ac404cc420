// The jfp subcommands that build and judge the model (ingest, train, eval, report, simulate, ...), one file
// each; those that run the site are in tools/operations/. Each registers itself on the CLI11 app; errors are thrown as
// std::exception and printed by main as "jfp: error: ..." with exit status 1.
#pragma once

#include <CLI/CLI.hpp>

#include "tools/options/cli_options.h"


namespace jfp {

void add_ingest_command(CLI::App &app);
void add_train_command(CLI::App &app);
void add_predict_command(CLI::App &app);
void add_eval_command(CLI::App &app);
void add_synth_command(CLI::App &app);
void add_parity_command(CLI::App &app);
void add_report_command(CLI::App &app);
void add_export_command(CLI::App &app);
void add_simulate_command(CLI::App &app);

}  // namespace jfp
