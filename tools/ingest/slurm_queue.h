// What slurmctld holds now, through squeue --json: the join tokens of queued and running jobs (accounting
// records a job's AdminComment only once it ends). JSON, not scontrol's text: `scontrol -o show job` prints
// the user's JobName before AdminComment, and a name may hold " AdminComment=jfp:t=<another job's token>".
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace jfp {

// Job id -> join token, from AdminComment only (users cannot set it; a "jfp:t=" typed into a name or a
// Comment is never a token). A running array task appears as "ARRAYJOB_TASK" too. With a job, only that
// job's (none when slurmctld does not know it). A failure of squeue throws.
std::vector<std::pair<std::string, std::string>> queue_tokens(const std::string &squeue, const std::string &job = "");

}  // namespace jfp
