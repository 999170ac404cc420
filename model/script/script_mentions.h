// One pass over a job script for what its two line scans need to know first: whether it holds the command
// word `module`/`ml` or "MODULEPATH" (the module check's line scan runs only then), and where its last
// "#SBATCH" is (the ignored-directive scan reads lines after the first command only when one follows it).
// The submit path reads the script's bytes once for both: most scripts have neither, and then this pass is
// all either check costs (docs/performance.md, the module check).
#pragma once

#include <cstddef>
#include <string_view>

namespace jfp {

inline constexpr size_t kModuleScanBytes = 16384;     // module lines sit at the top, as #SBATCH lines do
inline constexpr size_t kDirectiveScanBytes = 65536;  // a user sizes the script: the directive scan's cap

struct ScriptMentions {
    bool module_word = false;  // `module` or `ml` as a command word, in the first kModuleScanBytes
    bool module_path = false;  // "MODULEPATH", in the first kModuleScanBytes
    // The offset of the last "#SBATCH" in the first kDirectiveScanBytes; npos: none.
    size_t last_sbatch = std::string_view::npos;
};

// Reads past a NUL (what it finds there only sends the script to a line scan, which stops at it).
// modules false (no module check configured): only "#SBATCH" is looked for, a cheaper pass; the module
// fields stay false.
ScriptMentions find_script_mentions(std::string_view script, bool modules = true);

// The same facts the slow, obvious way; tests compare the two on random scripts.
ScriptMentions find_script_mentions_reference(std::string_view script, bool modules = true);

}  // namespace jfp
