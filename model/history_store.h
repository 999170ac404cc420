// The history store: one SQLite file (WAL) holding every job jfp has ingested, keyed by cluster +
// job key (JobIDRaw), so re-ingesting overlapping exports never duplicates. The CLI writes it; the
// plugin's loader thread reads it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "job_record.h"
#include "sacct_reader.h"
#include "sqlite_util.h"

namespace jfp {

// Reads jobs one at a time from a query; several may be open at once on one store.
class JobCursor {
public:
    JobCursor(const Db &db, const std::string &sql);
    // With text bound to ?1, ?2, ...
    JobCursor(const Db &db, const std::string &sql, const std::vector<std::string> &params);
    ~JobCursor();
    JobCursor(JobCursor &&) noexcept;
    JobCursor(const JobCursor &) = delete;
    JobCursor &operator=(const JobCursor &) = delete;
    bool next(JobRecord &out);

private:
    Stmt *stmt_;
};

class HistoryStore {
public:
    enum class Access { ReadOnly, ReadWrite };

    // ReadWrite creates the file and schema when missing. Throws SqliteError with the path and
    // what to do when the file is not a jfp store or was written by a newer jfp.
    HistoryStore(const std::string &path, Access access);
    ~HistoryStore();
    HistoryStore(const HistoryStore &) = delete;
    HistoryStore &operator=(const HistoryStore &) = delete;

    const std::string &path() const { return db_.path(); }

    // ---- ingest. All writes between begin_ingest and finish_ingest are batched in transactions.
    int64_t begin_ingest(const std::string &source);
    // Inserts or updates one job. A row that already holds a final state is never overwritten by an
    // unfinished one (an older export ingested after a newer one).
    void put_job(const JobRecord &job);
    void put_step(const StepInfo &step);
    void finish_ingest(int64_t ingest_id, const SacctReadReport &report);
    void abort_ingest();

    // ---- reading
    uint64_t job_count() const;
    // Every job with a job row (not step stubs), in submit order.
    JobCursor jobs_by_submit() const;
    // Jobs that ended (have an end time and a final state), in end order: what history is built from.
    JobCursor ended_jobs_by_end() const;
    void for_each_job(const std::function<void(JobRecord &&)> &fn) const;
    void for_each_ended_job(const std::function<void(JobRecord &&)> &fn) const;
    // Tasks per array (cluster + array job id); the feature array_size of each task.
    std::unordered_map<std::string, double> array_sizes() const;
    // Labeled jobs (COMPLETED or failed) submitted before `before` that also ended before it (all of
    // them when before is unset): the rows a model trained at that moment could learn from.
    uint64_t count_labeled(std::optional<int64_t> before) const;
    // Submit time of the offset-th such job in submit order.
    std::optional<int64_t> labeled_submit_at(uint64_t offset, std::optional<int64_t> before) const;
    // Job id -> join token of the jobs in slurmctld's queue (pending, running), from `scontrol show job`:
    // accounting records a job's AdminComment only when it ends, and job_modify needs it earlier.
    void replace_queue_tokens(const std::vector<std::pair<std::string, std::string>> &tokens);
    std::vector<std::pair<std::string, std::string>> queue_tokens() const;
    // ---- single jobs, for `jfp scripts`: newest first
    std::vector<JobRecord> jobs_with_id(const std::string &job_id) const;
    std::optional<JobRecord> job_with_token(const std::string &token) const;
    // The user's runs of a job name submitted before `before` that carry a join token.
    std::vector<JobRecord> tokened_runs(const std::string &user, const std::string &name, int64_t before) const;
    // Latest End time in the store (naive local), for `jfp ingest --follow`.
    std::optional<int64_t> latest_end() const;
    // The bad lines recorded by one ingest (all of them, not only those printed).
    std::vector<BadLine> bad_lines(int64_t ingest_id) const;

    static constexpr int kSchemaVersion = 1;

private:
    void maybe_commit();

    Db db_;
    bool writable_ = false;
    bool in_tx_ = false;
    uint64_t pending_writes_ = 0;
    struct Statements;
    Statements *st_ = nullptr;
};

}  // namespace jfp
