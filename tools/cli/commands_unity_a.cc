// The jfp program is compiled as two translation units (this one and commands_unity_b.cc) that include its
// sources. Why: every command includes CLI11 2.1, whose header alone costs 13 s to compile at -O2 -g
// (measured, g++ 12); nineteen units paid it nineteen times, a quarter of the whole build, on every leg of
// scripts/test. The sources stay one concept per file; only the compiler sees them joined. A file here must
// not define anything a file of the same unit also defines (the build fails if one does).
#include "tools/cli/jfp.cc"
#include "tools/cli/help_format.cc"
#include "tools/options/site_conf.cc"
#include "tools/options/cli_options.cc"
#include "tools/operations/cmd_check.cc"
#include "tools/commands/cmd_eval.cc"
#include "tools/commands/cmd_export.cc"
#include "tools/commands/cmd_ingest.cc"
#include "tools/operations/cmd_monitor.cc"
#include "tools/commands/cmd_train.cc"
