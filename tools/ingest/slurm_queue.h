// What slurmctld holds now, through the scontrol command: the join tokens of queued and running jobs
// (accounting records a job's AdminComment only once it ends).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace jfp {

// For a shell command line.
std::string shell_quote(const std::string &s);

// Job id -> join token, from `scontrol -o show job [JOB]`, AdminComment only (users cannot set it; a
// "jfp:t=" typed into Comment is never a token). An array task appears as "ARRAY_TASK" too. With a job,
// a job slurmctld does not know gives an empty list; any other failure of scontrol throws.
std::vector<std::pair<std::string, std::string>> queue_tokens(const std::string &scontrol, const std::string &job = "");

}  // namespace jfp
