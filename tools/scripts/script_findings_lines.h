// What an archived script shows by itself, as the plugin would tell its user: the #SBATCH lines sbatch
// ignored (with what the job got instead, when the store has the job) and the modules the site's index
// does not have; the "# finding:" lines `jfp scripts show` writes on stderr above the script.
#pragma once

#include <optional>
#include <string>

#include "model/jobs/job_record.h"

namespace jfp {

// modules_index: the index file; empty or unreadable, the module loads are said to be not checked.
std::string script_findings_lines(const std::string &script, const std::optional<JobRecord> &job,
                                  const std::string &modules_index);

}  // namespace jfp
