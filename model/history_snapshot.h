// Everything the plugin knows about the past, loaded from the history store by its background thread
// and swapped in whole: the HistoryIndex (the same replay the trainer runs), who a uid is, each user's
// latest account and QOS (standing in for the association defaults slurmctld applies after job_submit),
// and which join token each job id carries (for job_modify).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "history.h"
#include "history_store.h"

namespace jfp {

struct HistorySnapshot {
    HistoryIndex index;
    std::unordered_map<uint32_t, std::string> uid_names;
    std::unordered_map<std::string, std::string> last_account, last_qos;  // by user, latest submission
    std::unordered_map<std::string, std::string> token_by_job;            // JobID and JobIDRaw -> token
    uint64_t jobs = 0;
    int64_t latest_end = 0;

    const std::string *user_name(uint32_t uid) const;
    const std::string *account_of(const std::string &user) const;
    const std::string *qos_of(const std::string &user) const;
};

HistorySnapshot load_history_snapshot(const HistoryStore &store);

}  // namespace jfp
