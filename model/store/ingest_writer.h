// An ingest's writes into the history store: its job and step rows, each numbered with the next change
// number, batched in transactions from begin to finish, and the ingest's record around them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/files/sqlite_util.h"
#include "model/jobs/job_record.h"
#include "model/sacct/sacct_reader.h"
#include "model/store/job_cursor.h"

namespace jfp {

// What a write did to a job row, as the store holds it after the write.
struct WrittenRow {
    int64_t rowid = 0;      // 0: not known (a step's write into its job's row)
    JobSeqs seqs;           // seq always; job_seq and end_seq of a job's write
    bool step_oom = false;  // the row's steps' OOM verdict (fold_step_verdicts), after a job's write
    bool inserted = false;  // a new row (for a step: a stub, its job not written yet)
};
class RowObserver {
public:
    virtual ~RowObserver() = default;
    // A job's row as its write left it, its outcome as stored (fold_step_verdicts not applied): the
    // observer's to keep.
    virtual void job_written(JobRecord &&row, const WrittenRow &w) = 0;
    // A step that changed its job's row (cluster, job_key): fold_step_write says how.
    virtual void step_written(const StepInfo &step, const WrittenRow &w) = 0;
};
// What kStepUpsert does to a job's row, for a copy of it held in memory: the larger MaxRSS, either OOM.
void fold_step_write(JobRecord &row, bool &step_oom, const StepInfo &step);

class IngestWriter {
public:
    explicit IngestWriter(Db &db);
    // An ingest left open (an exception in the caller) is rolled back.
    ~IngestWriter();
    IngestWriter(const IngestWriter &) = delete;
    IngestWriter &operator=(const IngestWriter &) = delete;

    // Records the ingest and opens its first batch; returns the ingest's number.
    int64_t begin(const std::string &source);
    // Inserts or updates one job. A row that already holds a final state is never overwritten by an
    // unfinished one (an older export ingested after a newer one).
    void put_job(const JobRecord &job);
    // Folds a step's MaxRSS and OOM verdict into its job's row (a stub row until the job's own arrives).
    void put_step(const StepInfo &step);
    // Completes the ingest's record and commits its last batch.
    void finish(int64_t ingest_id, const SacctReadReport &report);
    void abort();

    // Tells `observer` (null: no one) what each write does to a job row, on the writing thread: what the
    // history snapshot is built from as the rows stream in (model/snapshot/snapshot_stream.h). A write that
    // changes nothing tells nothing.
    void observe(RowObserver *observer);
    // Whether another connection committed to the store since this ingest began (between its batches): then
    // the writes observed are not all of the store's changes.
    bool others_committed() const { return others_committed_; }

private:
    void begin_batch();
    void maybe_commit();
    // Runs a bound upsert and tells the observer what it changed (job null: a step's write).
    void run_observed(Stmt &s, const JobRecord *job, const StepInfo *step, int64_t seq);

    Db &db_;
    Stmt upsert_job_;
    Stmt upsert_step_;
    std::optional<Stmt> merged_;  // with an observer: what a job's write merged into an existing row
    RowObserver *observer_ = nullptr;
    int64_t data_version_ = -1;  // PRAGMA data_version at the ingest's first batch
    bool others_committed_ = false;
    int64_t next_seq_ = 1;
    uint64_t pending_writes_ = 0;
    std::optional<WriteTransaction> tx_;  // the batch in progress
};

}  // namespace jfp
