// Job rows read back from the history store one at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/jobs/job_record.h"
#include "model/files/sqlite_util.h"

namespace jfp {

// Change numbers of one job row (schema 2): seq of its latest change, job_seq when it first became a
// job row (not a step stub), end_seq when it first ended; 0 when not (yet).
struct JobSeqs {
    int64_t seq = 0, job_seq = 0, end_seq = 0;
};

// What a job row says once its steps' verdicts are read into it (JobCursor does it to every row): a step's
// OUT_OF_MEMORY over the job's FAILED, and a kill over the memory request (infer_memory_kill).
void fold_step_verdicts(JobRecord &job, bool step_oom);

// Reads jobs one at a time from a query that selects kJobColumns first (select_jobs, store_schema.h);
// several may be open at once on one store.
class JobCursor {
public:
    JobCursor(const Db &db, const std::string &sql);
    // With text bound to ?1, ?2, ...
    JobCursor(const Db &db, const std::string &sql, const std::vector<std::string> &params);
    JobCursor(JobCursor &&) noexcept = default;
    JobCursor(const JobCursor &) = delete;
    JobCursor &operator=(const JobCursor &) = delete;
    bool next(JobRecord &out);
    // For a cursor from changed_since(): also the row's change numbers.
    bool next(JobRecord &out, JobSeqs &seqs);

private:
    std::unique_ptr<Stmt> stmt_;
};

}  // namespace jfp
