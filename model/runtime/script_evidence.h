// What a job's script shows with certainty, whatever the model says: #SBATCH lines sbatch ignored, and
// modules the site's index does not have. Found before the outcome is filled, so that the annotation carries
// it, and judged after, by each finding's own setting in jfp.conf.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/policy/config.h"
#include "model/policy/script_findings.h"
#include "model/request/job_record_view.h"
#include "model/request/submit_request.h"
#include "model/script/ignored_directives.h"
#include "model/script/module_index.h"

namespace jfp {

struct ScriptEvidence {
    DirectiveScan directives;  // empty when ignored_directives = off
    std::vector<ModuleFinding> modules;
    std::vector<std::string> not_told;  // module loads not judged, and why (debug log)
    FindingCounts counts;               // the model's features, whatever jfp.conf does with the findings
    std::string annotation_field() const;  // ",script=ignored_sbatch+missing_module", or empty
    bool judged() const { return !directives.ignored.empty() || !modules.empty() || !not_told.empty(); }
};

// modules: the site's index, or null (no module check).
ScriptEvidence find_script_evidence(const Config &config, const ModuleIndex *modules, const SubmitRequest &req);

// What judging the evidence did, for the engine's counters.
struct EvidenceJudged {
    bool ignored_directives = false, missing_modules = false;
    bool rejected = false;  // the job is refused now and was not before
};

// Tells ev's findings by jfp.conf's settings: adds their sentences to message, sets reject, and logs them.
// r: the request as slurmctld will run it; comment: the user's (for the override).
EvidenceJudged judge_script_evidence(const Config &config, const SubmitRequest &req, const JobRequest &r,
                                     std::string_view comment, bool privileged, const ScriptEvidence &ev,
                                     std::string &message, bool &reject);

}  // namespace jfp
