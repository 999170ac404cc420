// The plugin's record of what it computed: one row per scored job with the feature vector, the score
// and a join token that travels with the job in AdminComment ("jfp:t=<token>"). `jfp ingest` stores the
// token from sacct, so `jfp train` can use the vector the plugin actually saw instead of one rebuilt from
// sacct, and `jfp parity` can compare the two.
//
// The submit path only pushes into a bounded queue; a background thread writes SQLite. A full queue
// drops (and counts) rather than blocks.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "model/archive/script_head_pool.h"
#include "model/archive/user_write_budget.h"
#include "model/script/script_traits.h"
#include "model/jobs/join_token.h"
#include "model/scoring/features.h"
#include "model/util/bounded_queue.h"
#include "model/writer/batch_writer.h"

namespace jfp {

// A job script's head waiting for the writer thread to scan it (the submit path skips the scan when the
// model does not use script features). The head sits in a block of the writer's ScriptHeadPool, whose
// cap on blocks in use bounds what a backed-up queue can pin in slurmctld.
class DeferredScript {
public:
    DeferredScript() = default;
    // Copies the first kScriptScanBytes of script into a block of pool if one is free; check pending().
    DeferredScript(std::string_view script, ScriptHeadPool &pool);
    DeferredScript(DeferredScript &&o) noexcept { *this = std::move(o); }
    DeferredScript &operator=(DeferredScript &&o) noexcept;
    DeferredScript(const DeferredScript &) = delete;
    DeferredScript &operator=(const DeferredScript &) = delete;
    ~DeferredScript() { release(); }

    bool pending() const { return block_ != nullptr; }
    // The scan the submit path skipped: the same traits scan_script gives for the whole script.
    ScriptTraits scan() const;

private:
    void release();
    ScriptHeadPool *pool_ = nullptr;
    char *block_ = nullptr;
    size_t len_ = 0;
    double bytes_ = 0;
};

struct FeatureLogEntry {
    JoinToken token;
    int64_t scored_at = 0;  // naive local
    std::shared_ptr<const std::string> model_id;  // usually points into the bundle scored with
    uint32_t uid = 0;
    std::string user, name;
    float p_fail = 0;
    int8_t top_class = 0;  // -1 for a job below its threshold (its class is not computed): written NULL
    uint8_t action = 0;
    float threshold = 0;
    FeatureVector x{};
    uint64_t script_fingerprint = 0;
    DeferredScript script;  // pending: x's script features are filled by the writer before it writes
    // An update's row replaces its submission's; script features it could not know (no script at hand, NaN)
    // are kept from the row it replaces.
    bool update = false;
};

// A sink of BatchWriter (model/writer/batch_writer.h): the thread, its wake policy, the lazy open,
// rotation and back-off are the BatchWriter's; what a row is and how a batch is written are here.
class FeatureLogWriter : private BatchSink {
public:
    // Up to 1024 script heads (16 MiB) in flight or idle; 128 idle once the writer is quiet. The wake
    // policy is BatchWriter's: a submission wakes the writer only when kWakeDepth entries wait (a burst,
    // before the idle heads run out), otherwise the writer drains on its own timer.
    static constexpr size_t kMaxHeadsInUse = 1024, kIdleHeads = 128, kWakeDepth = BatchWriter::kWakeDepth;
    static constexpr std::chrono::milliseconds kIdleWait = BatchWriter::kIdleWait, kBusyWait = BatchWriter::kBusyWait,
                                               kBusyHold = BatchWriter::kBusyHold;
    // idle_wait: the timer's period when nothing came (tests set it long, to see the wakes alone).
    // budget: what one user may add in a day, shared with the script archive; nullptr: none.
    FeatureLogWriter(std::string path, size_t capacity, size_t max_heads_in_use = kMaxHeadsInUse,
                     std::chrono::milliseconds idle_wait = kIdleWait, std::shared_ptr<UserWriteBudget> budget = nullptr);
    ~FeatureLogWriter() override;  // drains what is queued, then stops
    FeatureLogWriter(const FeatureLogWriter &) = delete;
    FeatureLogWriter &operator=(const FeatureLogWriter &) = delete;

    // Never blocks. false (and counted) when the queue is full.
    bool push(FeatureLogEntry &&e);
    // A script head to send with an entry; not pending when the pool's blocks are all in use.
    DeferredScript defer(std::string_view script) { return DeferredScript(script, heads_); }
    size_t heads_in_use() const { return heads_.in_use(); }
    size_t heads_idle() const { return heads_.idle(); }
    // Blocks until everything pushed so far is written (tests, shutdown).
    void flush();
    // The same, waiting at most `limit` (slurmctld's exit: a hung file system must not hold it). true: done.
    bool flush_for(std::chrono::milliseconds limit);
    // slurmctld's exit: the thread ended within limit (BatchWriter::stop_within). true: it has.
    bool stop_within(std::chrono::milliseconds limit);

    uint64_t written() const { return written_.load(); }
    uint64_t dropped() const { return dropped_.load(); }
    uint64_t failed() const { return failed_.load(); }
    // Rows not written because their user's day was spent (UserWriteBudget).
    uint64_t over_budget() const { return over_budget_.load(); }
    // How often a submission woke the writer (a burst reached the wake depth: kWakeDepth, or half the
    // queue's capacity when that is less).
    uint64_t wakes() const { return writer_.wakes(); }
    const std::string &path() const { return path_; }

private:
    struct OpenLog;  // the database and its statements, while open
    bool take() override;
    void open() override;
    void write(Batch &b) override;
    uint64_t fail_all() noexcept override;
    void close(bool rotated) noexcept override;
    std::string open_failed(const std::string &what) const override;
    std::string write_failed(const std::string &what) const override;
    std::string rotated(const std::string &what) const override;
    void quiet() override;

    std::string path_;
    ScriptHeadPool heads_;  // before queue_: outlives the entries that hold its blocks
    BoundedQueue<FeatureLogEntry> queue_;
    std::shared_ptr<UserWriteBudget> budget_;
    std::atomic<uint64_t> written_{0}, dropped_{0}, failed_{0}, over_budget_{0};
    // The writer's thread only.
    std::unique_ptr<OpenLog> open_;
    FeatureLogEntry held_;
    BatchWriter writer_;  // last: its thread starts once the rest is whole
};

struct LoggedFeatures {
    int schema_version = 0;
    std::string model_id;
    float p_fail = 0;
    int64_t scored_at = 0;  // naive-local submit time
    float threshold = 1;    // the threshold in force when it was scored
    uint8_t action = 0;     // Action: what the plugin did (0 none, 1 annotate, 2 warn, 3 reject)
    uint32_t uid = 0;       // the submitter Slurm authenticated: who a live figure's jobs belong to
    uint64_t script_fingerprint = 0;  // 0: none (no script, or logged before fingerprints)
    FeatureVector x{};
};

// What a row adds to the log, as UserWriteBudget measures it (its values, the key's index copy, the overhead).
uint64_t feature_log_row_bytes(const FeatureLogEntry &e);
// Per uid, the same measure summed over the rows scored since `since` (naive local seconds).
std::unordered_map<uint32_t, uint64_t> feature_log_bytes_by_user_since(const std::string &path, int64_t since);

// token -> the script fingerprint the plugin logged, for the tokens that have one: what `jfp ingest` joins
// into the history store. Empty when the file does not exist. Throws SqliteError when it cannot be read.
std::unordered_map<std::string, uint64_t> logged_script_fingerprints(const std::string &path);

// token -> what the plugin logged. Throws SqliteError when the file cannot be read.
std::unordered_map<std::string, LoggedFeatures> read_feature_log(const std::string &path);

// Retention (`jfp prune feature-log`): removes the rows of jobs scored before `before` (naive local), a few
// thousand per transaction, so the plugin's writer (which waits up to 5 s for the lock) never drops a row
// for it. With apply false only counts. Fills `r` as it goes: the rows removed (or that would be) and the
// rows left; on an error (another writer holding the file past 5 s) `r.removed` says what was committed.
struct FeatureLogPrune {
    uint64_t removed = 0, kept = 0;
};
void prune_feature_log(const std::string &path, int64_t before, bool apply, bool vacuum, FeatureLogPrune &r);

// Reclaiming what submissions that never became jobs left (`jfp prune orphans`): the rows scored within
// [from, to] (naive local) whose token the history store at store_path holds neither for a job nor for a
// queued one. The store is attached and only read; deletions go a few thousand per transaction.
void prune_feature_log_orphans(const std::string &path, const std::string &store_path, int64_t from, int64_t to,
                               bool apply, FeatureLogPrune &r);

}  // namespace jfp
