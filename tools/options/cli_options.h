// Values of options several subcommands take (times, ages, delimiters), and the exit status a subcommand
// asks main to return.
#pragma once

#include "tools/options/command_line.h"

#include <cstdint>
#include <string>

namespace jfp {

// "2024-03-01", "2024-03-01T12:00:00": a naive-local time, or a clear error naming the option.
int64_t parse_time_option(const std::string &text, const char *option);

// "90d", "12w", "36h", or a number of days: seconds, or a clear error naming the option.
int64_t parse_age_seconds(const std::string &text, const char *option);

// "|", ";", "\t", "tab", "\x1f", "0x1f", or any single character.
std::string parse_delimiter(const std::string &text);

// Exit status a subcommand asks main to return (0 unless set).
extern int g_exit_status;

}  // namespace jfp
