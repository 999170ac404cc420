// An ingest's writes into the history store: its job and step rows, each numbered with the next change
// number, batched in transactions from begin to finish, and the ingest's record around them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/files/sqlite_util.h"
#include "model/jobs/job_record.h"
#include "model/sacct/sacct_reader.h"

namespace jfp {

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

private:
    void begin_batch();
    void maybe_commit();

    Db &db_;
    Stmt upsert_job_;
    Stmt upsert_step_;
    int64_t next_seq_ = 1;
    uint64_t pending_writes_ = 0;
    std::optional<WriteTransaction> tx_;  // the batch in progress
};

}  // namespace jfp
