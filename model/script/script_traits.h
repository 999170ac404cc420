// What a job script says about the job, read in one pass over its start. Only the first
// kScriptScanBytes are examined: #SBATCH lines, module loads and launch lines sit at the top, and a
// 4 MiB script must not cost slurmctld milliseconds (docs/features.md has the measurement).
#pragma once

#include <cstddef>
#include <string_view>

namespace jfp {

inline constexpr size_t kScriptScanBytes = 16384;

struct ScriptTraits {
    double bytes = 0;            // whole script
    double lines = 0;            // in the scanned part
    double interp_python = 0;    // #! names python
    double interp_shell = 0;     // #! names sh/bash/zsh/ksh/csh/tcsh (or no #! at all)
    double sbatch_directives = 0;
    double module_loads = 0;     // "module load|add", "ml <name>"
    double srun = 0;
    double mpirun = 0;           // mpirun / mpiexec
    double uses_python = 0;      // a command line invokes python
    double uses_conda = 0;       // conda / mamba / source activate / venv
    double set_e = 0;            // "set -e" (or -eu..., -o errexit)
    double binary = 0;           // NUL bytes in the scanned part: not a text script
};

ScriptTraits scan_script(std::string_view script);

// Whether the script shows a checkpoint/restart mechanism: DMTCP or CRIU, a signal asked for before the
// time limit (--signal) or trapped, requeueing, or a checkpoint or restart it handles itself. Read for
// advice only (off the submit path's usual work).
bool shows_checkpointing(std::string_view script);

// The same result computed the slow, obvious way; tests compare the two on random scripts.
ScriptTraits scan_script_reference(std::string_view script);

}  // namespace jfp
