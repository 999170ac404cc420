// A job's archived script found from its job id (or join token): the archive keys a submission by its
// token, the history store maps tokens to job ids and outcomes once sacct is ingested, and slurmctld's
// queue holds the tokens of jobs not ingested yet.
#pragma once

#include <optional>
#include <string>

#include "model/archive/script_archive.h"
#include "model/store/history_store.h"
#include "model/jobs/job_record.h"

namespace jfp {

// One archived submission with what the store knows of the job (nothing until sacct is ingested).
struct LocatedScript {
    ArchivedSubmission sub;
    std::optional<JobRecord> job;
    std::string job_id;  // from the store or slurmctld's queue; empty when unknown
};

// The job's state in the store, "queued/running" when only the queue knows it, "-" when nothing does.
std::string state_of(const LocatedScript &f);

// "job 42 (amy, 'sim', submitted 2026-11-01T08:00:00, COMPLETED)"
std::string describe(const LocatedScript &f);

// A job id (or, by_token, a join token) to its archived submission: the store's jobs first (newest of that
// id), then slurmctld's queue through squeue for jobs not ingested yet. store may be null. Throws saying
// why no script is found.
LocatedScript locate_script(const ScriptArchive &archive, const HistoryStore *store, const std::string &squeue,
                            const std::string &job, bool by_token);

// The user's last completed run of the same job name, submitted before this one, with an archived script.
LocatedScript last_completed_run(const ScriptArchive &archive, const HistoryStore &store, const LocatedScript &failed);

}  // namespace jfp
