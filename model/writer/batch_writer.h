// One background thread that writes what slurmctld's submit path queued into one SQLite file, in batches,
// for the feature log and the script archive alike. The file is opened lazily at the first entry, closed
// and started anew when it is renamed or removed under it (OpenFileWatch), and while it cannot be opened
// the queue is drained as failed and the writer backs off: the queue never fills behind a broken file and
// slurmctld never waits on it. What an entry is and how a batch is written is the sink's.
//
// When the writer looks (the wake policy): a push wakes it only in a burst, since a futex wake is a system
// call on slurmctld's thread, and it shows in the submit call's p99 (docs/performance.md). Otherwise the
// writer drains on its own timer: in its busy cadence once kWakeDepth / 4 are written between two idle
// looks, for as long as kWakeDepth / 4 keep coming within each kBusyHold, else every idle_wait. In the
// busy cadence it looks every busy_wait_, between kBusyWait and kBusyHold, so that a transaction holds
// kWakeDepth / 4 to kWakeDepth entries: a 2 ms look at a few hundred jobs a second wrote one row per
// transaction, and each transaction rewrites whole pages (docs/performance.md §2). A push wakes it
// when the wake depth waits (kWakeDepth, or half a smaller queue) and the writer is not in its busy
// cadence, or when half the queue waits whatever its cadence.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace jfp {

// What a BatchWriter writes to. Called only from the writer's thread. Entries are whatever the sink's
// queue holds; each entry taken is finished exactly once (written, failed or left out), and the sink
// counts which.
class BatchSink {
public:
    struct Batch {
        uint64_t taken = 0;    // entries finished by this batch, whatever became of them
        uint64_t written = 0;  // of those, written to the file
    };
    virtual ~BatchSink() = default;

    // Takes the next queued entry to hold for the next write or fail_all; false when the queue is empty.
    virtual bool take() = 0;
    // Opens the file; throws when it cannot.
    virtual void open() = 0;
    // Writes the held entry and what follows it in the queue, up to the sink's batch size, as one
    // transaction. Fills b as it goes; throws when the transaction was rolled back, after counting every
    // entry it took as failed (or left out) and giving back what it charged.
    virtual void write(Batch &b) = 0;
    // The file cannot be opened: the held entry and every queued one are failed. Returns how many.
    virtual uint64_t fail_all() noexcept = 0;
    // Lets go of the file. rotated: it was renamed or removed under the writer, so what the file's WAL
    // holds goes into it first (checkpoint_before_release).
    virtual void close(bool rotated) noexcept = 0;

    // The log lines, in the sink's words.
    virtual std::string open_failed(const std::string &what) const = 0;
    virtual std::string write_failed(const std::string &what) const = 0;
    virtual std::string rotated(const std::string &what) const = 0;

    // Every time the writer looks, before it takes anything (periodic reports).
    virtual void tick() {}
    // The writer is back on its idle timer: a burst's spare memory can go.
    virtual void quiet() {}
};

class BatchWriter {
public:
    static constexpr size_t kWakeDepth = 64;
    static constexpr std::chrono::milliseconds kIdleWait{50}, kBusyWait{2}, kBusyHold{50};
    static constexpr std::chrono::seconds kBackOff{5};  // between attempts to open a file that failed

    struct Options {
        const char *thread_name = "jfp-writer";  // as top -H shows it (15 characters)
        size_t queue_capacity = 0;              // the sink's queue: a smaller one wakes the writer at half
        std::chrono::milliseconds idle_wait = kIdleWait;
        int64_t log_interval_seconds = 300;     // one error line per interval at most
    };

    // sink must outlive the writer. The thread starts at start(), so that the sink's owner can finish
    // constructing what the thread will touch.
    BatchWriter(std::string path, BatchSink &sink, Options opt);
    ~BatchWriter();  // stop()
    BatchWriter(const BatchWriter &) = delete;
    BatchWriter &operator=(const BatchWriter &) = delete;

    void start();
    // Writes what is queued, then ends the thread. The sink's owner calls it first thing in its
    // destructor, while everything the thread touches is still whole.
    void stop();
    // At exit: stop() within limit (what is queued is written first); past it the thread is left detached.
    // true: the thread has ended.
    bool stop_within(std::chrono::milliseconds limit);

    // After an entry went into the sink's queue (never blocks): counts it, and wakes the writer by the
    // rules above.
    void pushed();
    // Blocks until everything pushed so far is finished (written, failed or left out), at most `limit`
    // (milliseconds::max(): no limit; slurmctld's exit must not hang on a hung file system). true: done.
    bool flush_for(std::chrono::milliseconds limit);

    uint64_t wakes() const { return wakes_.load(); }
    uint64_t finished() const { return done_.load(); }
    const std::string &path() const { return path_; }

private:
    void run();
    void wait_idle(bool busy);
    void back_off();

    std::string path_;
    BatchSink &sink_;
    const Options opt_;
    const size_t wake_depth_;  // kWakeDepth, or half a smaller queue
    std::atomic<uint64_t> pushed_{0}, done_{0}, wakes_{0};
    std::atomic<bool> stop_{false};
    std::atomic<bool> ended_{false};    // run() has returned
    std::atomic<bool> woken_{false};    // a push has woken the writer since it last slept
    std::atomic<bool> polling_{false};  // the writer looks within busy_wait_ by itself: a push need not wake it
    std::chrono::milliseconds busy_wait_ = kBusyWait;  // the writer's thread only
    std::mutex mu_;
    bool attention_ = false;  // under mu_: a flush or stop() asks the writer to look now
    std::condition_variable cv_;
    std::thread thread_;
};

}  // namespace jfp
