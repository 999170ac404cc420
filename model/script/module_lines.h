// The modules a batch script loads (Lmod and Environment Modules): `module load|add|try-load|try-add NAME...`,
// `module swap|switch OLD NEW`, and `ml NAME...` (Lmod's shorthand: `ml` alone lists, `ml -NAME` unloads,
// `ml SUBCOMMAND ...` is that subcommand). Read line by line as the shell would meet them at the start of a
// line; here-document bodies are skipped. What cannot be known without running the script is said, not
// guessed: a name built from a variable, a quote or a glob is left out, and a load after `module use`, a
// MODULEPATH assignment or a sourced file is marked, since it may come from a tree no index knows (sourcing
// the module system's own init, /etc/profile or Lmod's init/bash, is not: it sets up the index's MODULEPATH).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/script/script_mentions.h"

namespace jfp {

struct ModuleLoad {
    uint32_t line = 0;         // 1-based
    std::string name;          // as written: "python/3.11"
    std::string text;          // the line, blanks trimmed, at most kMaxText bytes
    bool optional = false;     // try-load / try-add: a missing module does not stop the script
    uint32_t after_path_change = 0;  // the line of an earlier `module use`, MODULEPATH= or `source` (0: none)
    static constexpr size_t kMaxText = 120;
    static constexpr size_t kMaxName = 200;
};

struct ModuleScan {
    std::vector<ModuleLoad> loads;
    bool complete = true;  // false: the scan stopped at max_bytes or max_loads
};

// Reads at most the first kModuleScanBytes of the script (a user sizes it; module lines sit at the top, as
// #SBATCH lines do, and the trait scan reads as much) and reports at most max_loads names.
ModuleScan find_module_loads(std::string_view script, size_t max_loads = 32);
// The same, after the pass over the script's bytes the submit path makes once for both line scans.
ModuleScan find_module_loads(std::string_view script, const ScriptMentions &mentions, size_t max_loads = 32);

}  // namespace jfp
