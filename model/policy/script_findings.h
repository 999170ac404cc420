// What the script itself shows, said to the user with certainty and acted on by its own setting in
// jfp.conf (ignored_directives = off | warn | reject): #SBATCH lines sbatch ignored.
#pragma once

#include <string>
#include <string_view>

#include "model/script/ignored_directives.h"
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

}  // namespace jfp
