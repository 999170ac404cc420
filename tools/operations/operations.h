// The jfp subcommands that run a site rather than build its model: check the layout, watch the live model
// and the plugin, publish a bundle, keep the files within their retention, read the script archive, and
// index the site's modules. One file each; registered on the command line as tools/commands/ registers its own.
#pragma once

#include "tools/options/command_line.h"

#include "tools/options/cli_options.h"

namespace jfp {

void add_monitor_command(Command &app);
void add_scripts_command(Command &app);
void add_publish_command(Command &app);
void add_check_command(Command &app);
void add_status_command(Command &app);
void add_prune_command(Command &app);
void add_modules_command(Command &app);

}  // namespace jfp
