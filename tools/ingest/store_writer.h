// Writes parsed sacct rows to the history store on a second thread, so that parsing and SQLite's work
// overlap (bench/pipeline.py: each was about half of `jfp ingest`). Rows travel in batches through a
// small bounded queue: memory stays bounded however large the export, and order is kept (a step row
// must reach the store after its job).
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <variant>
#include <vector>

#include "model/store/history_store.h"
#include "model/jobs/job_record.h"

namespace jfp {

class StoreWriter {
public:
    // fingerprints: token -> script fingerprint, set on each job that carries a token (may be null).
    explicit StoreWriter(HistoryStore &store, const std::unordered_map<std::string, uint64_t> *fingerprints = nullptr);
    ~StoreWriter();  // joins; drops what was not written (call finish() to write it)
    StoreWriter(const StoreWriter &) = delete;
    StoreWriter &operator=(const StoreWriter &) = delete;

    // Throw the writer's error, if it failed, so the reader stops early.
    void put(JobRecord &&job);
    void put(StepInfo &&step);
    // Writes what is queued, stops the thread, and rethrows the writer's error if there was one.
    void finish();

private:
    using Row = std::variant<JobRecord, StepInfo>;
    static constexpr size_t kBatch = 1024;
    static constexpr size_t kMaxBatches = 8;

    void push_row(Row &&row);
    void flush();
    void run();

    HistoryStore &store_;
    const std::unordered_map<std::string, uint64_t> *fingerprints_;
    std::vector<Row> batch_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::vector<Row>> queue_;
    bool done_ = false;
    std::exception_ptr error_;
    std::thread thread_;
};

}  // namespace jfp
