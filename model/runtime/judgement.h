// Judging a request: resolved against the partition defaults, its history looked up, its features built,
// scored and decided by the policy. A partition list is judged in each partition the job may start in, and
// the strictest decision stands.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/history/name_identity_cache.h"
#include "model/reload/published_state.h"
#include "model/request/job_record_view.h"
#include "model/request/judged_request.h"
#include "model/request/submit_request.h"
#include "model/scoring/features.h"

namespace jfp {

// Who asks and what is known beside the request.
struct JudgeContext {
    const std::string &user;
    bool privileged = false;   // root or SlurmUser
    std::string_view comment;  // the user's, for the override
    ScriptScan scan = ScriptScan::Now;
    const SubmissionFacts *facts = nullptr;  // an update: the array and script traits the submission had
    FindingCounts findings;                  // the script's certain findings (the model's features)
    uint64_t *walk_ns = nullptr;             // when set, the tree walks' time is added to it (a sampled call)
};

// st must have a model; its history is read under the caller's HistoryLock. names: job names' identities,
// shared by every thread. entries: req.partition's entries (partitions_to_judge), when the caller has them.
void judge_request(const PublishedState &st, NameIdentityCache &names, const SubmitRequest &req, const JudgeContext &ctx,
                   JudgedRequest &best, const std::vector<std::string> *entries = nullptr);

// Of a partition list, the entries a judgement scores: every partition jfp knows (slurm.conf, the history,
// jfp.conf), and the first it does not (all unknown ones score alike).
std::vector<std::string> partitions_to_judge(const PublishedState &st, std::string_view list);

}  // namespace jfp
