// Single jobs looked up in the history store, for `jfp scripts`: by job id, by the plugin's join token,
// and a user's earlier runs of a name. Newest first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/files/sqlite_util.h"
#include "model/jobs/job_record.h"

namespace jfp {

// script_fp false: the store has no script_fp column (a store from before fingerprints, opened read-only).
std::vector<JobRecord> jobs_with_id(const Db &db, bool script_fp, const std::string &job_id);
std::optional<JobRecord> job_with_token(const Db &db, bool script_fp, const std::string &token);
// The user's runs of a job name submitted before `before` that carry a join token.
std::vector<JobRecord> tokened_runs(const Db &db, bool script_fp, const std::string &user, const std::string &name,
                                    int64_t before);

}  // namespace jfp
