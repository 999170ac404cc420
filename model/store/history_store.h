// The history store: one SQLite file (WAL) holding every job jfp has ingested, keyed by cluster +
// job key (JobIDRaw), so re-ingesting overlapping exports never duplicates. The CLI writes it; the
// plugin's loader thread reads it. The class is the store's one handle; its rooms (model/store/) do the
// work: the schema and its open, the ingest's writes, the ingest records, single-job lookups, the queue's
// tokens, retention.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/sacct/sacct_reader.h"
#include "model/store/job_cursor.h"
#include "model/jobs/job_record.h"
#include "model/files/sqlite_util.h"

namespace jfp {

class IngestWriter;
class RowObserver;

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

    // ---- ingest (ingest_writer.h). All writes between begin_ingest and finish_ingest are batched in
    // transactions.
    int64_t begin_ingest(const std::string &source);
    // Inserts or updates one job. A row that already holds a final state is never overwritten by an
    // unfinished one (an older export ingested after a newer one).
    void put_job(const JobRecord &job);
    void put_step(const StepInfo &step);
    void finish_ingest(int64_t ingest_id, const SacctReadReport &report);
    void abort_ingest();
    // What this ingest's writes do to job rows, told to observer on the writing thread (IngestWriter::observe);
    // and whether another connection committed between this ingest's batches (the observer missed changes).
    void observe_ingest(RowObserver *observer);
    bool others_committed_during_ingest() const;

    // ---- reading
    uint64_t job_count() const;
    // Every job with a job row (not step stubs), in submit order.
    JobCursor jobs_by_submit() const;
    // Jobs that ended (have an end time and a final state), in end order: what history is built from.
    JobCursor ended_jobs_by_end() const;
    void for_each_job(const std::function<void(JobRecord &&)> &fn) const;
    void for_each_ended_job(const std::function<void(JobRecord &&)> &fn) const;
    // The plugin's full load, which must be quick at tens of millions of jobs: ended jobs in the same
    // order with only the columns HistoryIndex::add reads (the others empty); and every job row, in no
    // particular order, with only who submitted it, where, and when.
    JobCursor ended_jobs_for_index() const;
    struct Submission {
        std::string_view cluster, job_key, user, account, qos;
        int64_t uid = -1, submit = 0;
    };
    void for_each_submission(const std::function<void(const Submission &)> &fn) const;
    // Jobs not ended that carry a join token, in submit order.
    JobCursor unfinished_tokened_jobs() const;
    // Tasks per array (cluster + array job id); the feature array_size of each task.
    std::unordered_map<std::string, double> array_sizes() const;
    // Labeled jobs (COMPLETED or failed) submitted before `before` that also ended before it (all of
    // them when before is unset): the rows a model trained at that moment could learn from.
    uint64_t count_labeled(std::optional<int64_t> before) const;
    // Submit time of the offset-th such job in submit order.
    std::optional<int64_t> labeled_submit_at(uint64_t offset, std::optional<int64_t> before) const;
    // Job id -> join token of the jobs in slurmctld's queue (queue_tokens.h).
    void replace_queue_tokens(const std::vector<std::pair<std::string, std::string>> &tokens);
    std::vector<std::pair<std::string, std::string>> queue_tokens() const;
    // ---- single jobs, for `jfp scripts`: newest first (job_lookup.h)
    std::vector<JobRecord> jobs_with_id(const std::string &job_id) const;
    std::optional<JobRecord> job_with_token(const std::string &token) const;
    // The user's runs of a job name submitted before `before` that carry a join token.
    std::vector<JobRecord> tokened_runs(const std::string &user, const std::string &name, int64_t before) const;
    // ---- changes, for the plugin's incremental reload
    // False for a schema-1 store opened read-only (nothing numbers its changes: only full loads).
    bool tracks_changes() const { return tracks_changes_; }
    // Highest change number in the store; 0 when empty or not tracked.
    int64_t last_change() const;
    // Job rows changed after change number `seq`, in the order ended_jobs_by_end() replays them
    // (rows not ended first). Read with next(JobRecord&, JobSeqs&).
    JobCursor changed_since(int64_t seq) const;
    // How many job rows changed after `seq`, and how many of those had already ended by then
    // (end_seq <= seq) or end before `end` (they would have to be replayed before jobs already loaded).
    struct ChangeCount {
        uint64_t changed = 0, updated_after_end = 0, ended_late = 0;
    };
    ChangeCount count_changes(int64_t seq, int64_t end) const;
    // Holds one read transaction (one consistent view of the store) across several queries.
    class ReadTransaction {
    public:
        explicit ReadTransaction(const HistoryStore &store);
        ~ReadTransaction();
        ReadTransaction(const ReadTransaction &) = delete;
        ReadTransaction &operator=(const ReadTransaction &) = delete;

    private:
        const Db &db_;
    };

    // Latest End time in the store (naive local), for `jfp ingest --follow`.
    std::optional<int64_t> latest_end() const;
    // Of the jobs submitted at or after `since`: how many, how many with a numeric uid, how many carrying the
    // plugin's join token (AdminComment).
    struct Coverage {
        uint64_t jobs = 0, with_uid = 0, with_token = 0;
    };
    Coverage coverage_since(int64_t since) const;
    // The submit time of the earliest job that carries the plugin's token: when the plugin began scoring.
    std::optional<int64_t> first_token_submit() const;
    // The bad lines recorded by one ingest (all of them, not only those printed; ingest_records.h).
    std::vector<BadLine> bad_lines(int64_t ingest_id) const;

    // ---- retention (store_prune.cc)
    // Removes the jobs that ended before `ended_before` (naive local) and the ingest records (with their
    // bad lines) started before `ingested_before` (epoch), keeping the newest; in one transaction, recorded
    // in the prunes table, so the plugin's loader reloads the store whole (a deletion is not a change it
    // can apply in place). With apply false only counts.
    struct PruneCount {
        uint64_t jobs = 0;              // ended jobs removed
        uint64_t users_emptied = 0;     // users none of whose jobs remain
        uint64_t kept = 0;              // job rows that remain
        uint64_t unfinished_older = 0;  // jobs submitted before the cutoff that never ended in the store (kept)
        std::vector<std::string> unfinished_examples;  // a few of their job ids
        uint64_t ingests = 0;           // ingest records removed
    };
    PruneCount prune(int64_t ended_before, int64_t ingested_before, bool apply);
    // How many prunes the store has had: a change here means rows were deleted.
    int64_t prune_count() const;
    // Which store this is, for a snapshot of it (snapshot_file.h): its oldest ingest record kept (number,
    // time, source). Empty for a store never ingested into.
    std::string lineage() const;
    // Its newest ingest record, in the same form; and whether the record numbered as in `mark` is still
    // there unchanged (ingest_records.h).
    std::string newest_ingest_mark() const;
    bool has_ingest_mark(const std::string &mark) const;
    void vacuum();

private:
    void require_writable() const;

    Db db_;
    bool writable_ = false;
    bool tracks_changes_ = true;
    bool has_script_fp_ = true;
    std::unique_ptr<IngestWriter> writer_;  // writable stores only; destroyed before db_
};

}  // namespace jfp
