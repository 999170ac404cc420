// What the script itself shows, said to the user with certainty and acted on by its own settings in
// jfp.conf (off | warn | reject): #SBATCH lines sbatch ignored (ignored_directives), modules that exist
// nowhere in the site's module index (missing_modules).
#pragma once

#include <string>
#include <string_view>

#include <vector>

#include "model/script/ignored_directives.h"
#include "model/script/module_index.h"
#include "model/script/module_lines.h"
#include "model/jobs/job_request.h"
#include "model/policy/config.h"

namespace jfp {

struct ScriptFindingsVerdict {
    bool found = false;
    bool reject = false;
    std::string message;  // for the user (err_msg); empty in shadow mode or when nothing was found
};

// scan: find_ignored_directives of the job's script; r: the request as slurmctld will run it (its
// memory, time, partition: what the job got instead of an ignored line). comment: the user's (for the
// override); privileged: root or SlurmUser.
ScriptFindingsVerdict judge_script_findings(const Config &c, const JobRequest &r, const DirectiveScan &scan,
                                            std::string_view comment, bool privileged);

// One finding as a sentence: "line 7: '#SBATCH --mem=64G' comes after the script's first command (line 5):
// sbatch ignored it; the job asks for 4096 MB of memory. Move it above line 5."
std::string ignored_directive_sentence(const IgnoredDirective &d, uint32_t first_command_line, const JobRequest &r);

// A module load the index says cannot succeed: no module of that name, or no such version of it.
struct ModuleFinding {
    ModuleLoad load;
    ModuleLookup lookup;
};
// The loads to tell the user about. Not told, and listed in not_told with why (for the debug log): a
// try-load (a missing module does not stop it), a load after `module use`, MODULEPATH= or `source` (a tree
// the index may not know), a module behind a hierarchy level the script may have loaded. At most
// max_found findings; the closest-name search runs for them only.
std::vector<ModuleFinding> missing_modules(const ModuleScan &scan, const ModuleIndex &index,
                                           std::vector<std::string> *not_told = nullptr, size_t max_found = 4);

// "line 4: 'module load pyhton/3.11': this cluster has no module pyhton; did you mean python? (`module
// spider python` lists its versions)"
std::string missing_module_sentence(const ModuleFinding &f);

// Every finding the plugin would tell about script, one sentence each: the #SBATCH lines sbatch ignored
// (with what the job got instead when r knows it; a default JobRequest knows nothing) and, with an index,
// the modules it does not have. For the CLI (jfp scripts show); the plugin judges each kind by its own
// setting in jfp.conf.
std::vector<std::string> script_finding_sentences(std::string_view script, const ModuleIndex *index, const JobRequest &r);

ScriptFindingsVerdict judge_module_findings(const Config &c, const JobRequest &r, const std::vector<ModuleFinding> &found,
                                            std::string_view comment, bool privileged);

}  // namespace jfp
