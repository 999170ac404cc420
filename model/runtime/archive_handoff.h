// The submit path's share of archiving a script: one bounded copy into the archive writer's queue.
#pragma once

#include <string>

#include "model/archive/script_archive_writer.h"
#include "model/jobs/join_token.h"
#include "model/request/submit_request.h"

namespace jfp {

// Queues r's script (and, with_env, req's environment) under token, when w's byte budget has room; counts
// a drop when it has not. cluster: slurm.conf's ClusterName, recorded with the script.
void hand_to_archive(ScriptArchiveWriter &w, const SubmitRequest &req, const JobRequest &r, const JoinToken &token,
                     bool with_env, const std::string &cluster);

}  // namespace jfp
