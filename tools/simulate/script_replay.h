// jfp simulate's second half: what the jobs' archived scripts show with certainty (ignored #SBATCH lines,
// modules the site's index lacks), and what jfp.conf's ignored_directives and missing_modules would have
// done about it, judged as the plugin judges it (model/policy/script_findings).
#pragma once

#include <vector>

#include "model/archive/script_archive.h"
#include "model/policy/config.h"
#include "model/script/module_index.h"
#include "tools/simulate/policy_replay.h"

namespace jfp {

// Fills each job's script fields from the archive (jobs with no token or no archived script are left
// unarchived). index: null when the site has none (then modules are not judged).
void replay_script_findings(const ScriptArchive &archive, const ModuleIndex *index, const Config &cfg,
                            std::vector<SimulatedJob> &jobs);

}  // namespace jfp
