// --help that reads on an 100-column terminal: descriptions wrapped beside a 30-column left side, value
// types as plain words (FLOAT, not "FLOAT:FLOAT in [1 - 86400]": the range goes into the description),
// and no CLI11 flag markup ("--no-queue{false}").
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

namespace jfp {

inline constexpr size_t kHelpWidth = 100;

// Words of text in lines of at most `width` columns (a longer word gets a line of its own).
std::string wrap_words(const std::string &text, size_t width);

std::shared_ptr<CLI::Formatter> help_formatter();

// Every subcommand, at any depth, listed under "Subcommands" (CLI11 2.6's default is "SUBCOMMANDS"). Call
// once all are added.
void name_subcommand_groups(CLI::App &app);

}  // namespace jfp
