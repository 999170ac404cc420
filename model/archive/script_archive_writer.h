// The plugin's side of the script archive: job_submit copies the script (and environment) into a bounded
// queue and returns; a background thread hashes, compresses and writes them (ScriptArchive).
//
// It never blocks or fails a submission: past its entry or byte budget (slurmctld's memory), past the
// user's day (UserWriteBudget), or while the archive cannot be written (a full disk, a lock held too long),
// scripts are dropped, counted, and the reason is logged at most once per interval.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "model/archive/script_archive.h"
#include "model/archive/user_write_budget.h"
#include "model/util/bounded_queue.h"
#include "model/writer/batch_writer.h"

namespace jfp {

struct ScriptArchiveEntry {
    ArchivedSubmission meta;  // token, cluster, submitted, uid, user, name, work_dir
    // The script, then the environment: one block, filled on the submit thread (one allocation, not one
    // per part, and no zero fill first) and freed on the archive's.
    std::unique_ptr<char[]> text;
    size_t script_len = 0, env_len = 0;
    bool has_env = false;

    std::string_view script() const { return {text.get(), script_len}; }
    std::string_view env() const { return {text.get() + script_len, env_len}; }
    // A block of script_len + env_len bytes, uninitialised: the caller fills it.
    char *allocate(size_t script_bytes, size_t env_bytes);
    // Copies script and env into a block of their own (callers with the text at hand).
    void assign(std::string_view script, std::string_view env = {});
};

struct ScriptArchiveCounters {
    uint64_t archived = 0, new_scripts = 0, dropped = 0, failed = 0;
    uint64_t over_user_budget = 0;  // not archived: the user's day was spent (UserWriteBudget)
};

// A sink of BatchWriter (model/writer/batch_writer.h), which owns the thread, when it looks, the lazy
// open, rotation and back-off; what an entry is and how a batch is archived are here.
class ScriptArchiveWriter : private BatchSink {
public:
    // budget: what one user may add in a day, shared with the feature log; nullptr: none.
    ScriptArchiveWriter(std::string path, size_t max_entries, int64_t max_bytes, std::shared_ptr<UserWriteBudget> budget,
                        int64_t log_interval_seconds = 60);
    ~ScriptArchiveWriter() override;  // writes what is queued, then stops
    ScriptArchiveWriter(const ScriptArchiveWriter &) = delete;
    ScriptArchiveWriter &operator=(const ScriptArchiveWriter &) = delete;

    // Whether an entry of this many bytes fits the budget now; charges it if so. The submit path asks
    // before it copies anything, so a full queue costs no copy.
    bool reserve(int64_t bytes);
    // Queues an entry reserved with reserve(bytes); never blocks.
    void push(ScriptArchiveEntry &&e, int64_t bytes);
    // Counts a submission reserve() turned away.
    void count_drop() { dropped_.fetch_add(1, std::memory_order_relaxed); }
    // Blocks until everything pushed so far is written or failed (tests, shutdown).
    void flush();
    // The same, waiting at most `limit` (slurmctld's exit: a hung file system must not hold it). true: done.
    bool flush_for(std::chrono::milliseconds limit);
    // slurmctld's exit: the thread ended within limit (BatchWriter::stop_within). true: it has.
    bool stop_within(std::chrono::milliseconds limit);

    ScriptArchiveCounters counters() const;
    const std::string &path() const { return path_; }

private:
    struct Queued {
        ScriptArchiveEntry e;
        int64_t bytes = 0;
    };
    bool take() override;
    void open() override;
    void write(Batch &b) override;
    uint64_t fail_all() noexcept override;
    void close(bool rotated) noexcept override;
    std::string open_failed(const std::string &what) const override;
    std::string write_failed(const std::string &what) const override;
    std::string rotated(const std::string &what) const override;
    void tick() override { report_drops(false); }
    void report_drops(bool final);
    void fail(std::unique_ptr<Queued> &q) noexcept;

    std::string path_;
    int64_t max_bytes_;
    std::shared_ptr<UserWriteBudget> budget_;
    int64_t log_interval_;
    // Pointers: the queue's cells are allocated up front, and 65,536 entries inline would be ~20 MiB of
    // slurmctld's memory before the first job.
    BoundedQueue<std::unique_ptr<Queued>> queue_;
    std::atomic<int64_t> bytes_{0};
    std::atomic<uint64_t> archived_{0}, new_scripts_{0}, dropped_{0}, failed_{0}, over_budget_{0};
    // The writer's thread only (and the destructor, once it has stopped).
    uint64_t dropped_reported_ = 0, failed_reported_ = 0, over_budget_reported_ = 0;
    int64_t last_report_ = 0;
    bool reported_once_ = false;
    std::unique_ptr<ScriptArchive> archive_;
    std::unique_ptr<Queued> held_;
    BatchWriter writer_;  // last: its thread starts once the rest is whole
};

}  // namespace jfp
