// Writes parsed sacct rows to the history store on a second thread, so that parsing and SQLite's work
// overlap (bench/pipeline.py: each was about half of `jfp ingest`). Order is kept (a step row must reach
// the store after its job); memory stays bounded (batch_pipe.h).
#pragma once

#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "model/jobs/job_record.h"
#include "model/store/history_store.h"
#include "tools/ingest/batch_pipe.h"

namespace jfp {

class StoreWriter {
public:
    // fingerprints: token -> script fingerprint, set on each job that carries a token (may be null).
    explicit StoreWriter(HistoryStore &store, const std::unordered_map<std::string, uint64_t> *fingerprints = nullptr);

    // Throw the writer's error, if it failed, so the reader stops early.
    void put(JobRecord &&job) { pipe_.put(Row(std::in_place_index<0>, std::move(job))); }
    void put(StepInfo &&step) { pipe_.put(Row(std::in_place_index<1>, std::move(step))); }
    // Writes what is queued, stops the thread, and rethrows the writer's error if there was one. Without
    // it, the destructor drops what was not written.
    void finish() { pipe_.finish(); }

private:
    using Row = std::variant<JobRecord, StepInfo>;
    void write(std::vector<Row> &rows);

    HistoryStore &store_;
    const std::unordered_map<std::string, uint64_t> *fingerprints_;
    BatchPipe<Row> pipe_;  // last: its thread writes through the members above
};

}  // namespace jfp
