// The join tokens of the jobs in slurmctld's queue (pending, running), kept in the history store:
// accounting records a job's AdminComment only when it ends, and job_modify needs it earlier.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/files/sqlite_util.h"

namespace jfp {

// (job id, token) pairs. Saving replaces every token the store held with these, in one transaction.
void save_queue_tokens(Db &db, const std::vector<std::pair<std::string, std::string>> &tokens);
std::vector<std::pair<std::string, std::string>> load_queue_tokens(const Db &db);

}  // namespace jfp
