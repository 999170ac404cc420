// The jfp subcommands. Each registers itself on the CLI11 app; errors are thrown as std::exception
// and printed by main as "jfp: error: ..." with exit status 1.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace jfp {

void add_ingest_command(CLI::App &app);
void add_train_command(CLI::App &app);
void add_predict_command(CLI::App &app);
void add_eval_command(CLI::App &app);
void add_synth_command(CLI::App &app);
void add_parity_command(CLI::App &app);
void add_report_command(CLI::App &app);
void add_monitor_command(CLI::App &app);
void add_scripts_command(CLI::App &app);
void add_export_command(CLI::App &app);
void add_publish_command(CLI::App &app);
void add_check_command(CLI::App &app);
void add_status_command(CLI::App &app);
void add_simulate_command(CLI::App &app);
void add_prune_command(CLI::App &app);

// "2024-03-01", "2024-03-01T12:00:00": a naive-local time, or a clear error naming the option.
int64_t parse_time_option(const std::string &text, const char *option);

// "90d", "12w", "36h", or a number of days: seconds, or a clear error naming the option.
int64_t parse_age_seconds(const std::string &text, const char *option);

// "|", ";", "\t", "tab", "\x1f", "0x1f", or any single character.
char parse_delimiter(const std::string &text);

// Exit status a subcommand asks main to return (0 unless set).
extern int g_exit_status;

}  // namespace jfp
