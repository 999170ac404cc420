// The jfp subcommands that build and judge the model (ingest, train, eval, report, simulate, ...), one file
// each; those that run the site are in tools/operations/. Each registers itself on the command line
// (tools/options/command_line.h: no CLI11 here); errors are thrown as std::exception and printed by main as
// "jfp: error: ..." with exit status 1, a bad value as UsageError (exit status 64).
#pragma once

#include "tools/options/command_line.h"

#include "tools/options/cli_options.h"


namespace jfp {

void add_ingest_command(Command &app);
void add_train_command(Command &app);
void add_predict_command(Command &app);
void add_eval_command(Command &app);
void add_synth_command(Command &app);
void add_parity_command(Command &app);
void add_report_command(Command &app);
void add_export_command(Command &app);
void add_finish_bundle_command(Command &app);
void add_simulate_command(Command &app);

}  // namespace jfp
