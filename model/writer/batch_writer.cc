#include "model/writer/batch_writer.h"

#include <algorithm>
#include <exception>

#include "model/files/open_file_watch.h"
#include "model/files/sqlite_util.h"
#include "model/util/background_thread.h"
#include "model/util/log.h"

namespace jfp {

BatchWriter::BatchWriter(std::string path, BatchSink &sink, Options opt)
    : path_(std::move(path)), sink_(sink), opt_(opt),
      // A queue smaller than twice the depth would fill before it woke the writer.
      wake_depth_(std::max<size_t>(1, std::min(kWakeDepth, opt.queue_capacity / 2))) {}

BatchWriter::~BatchWriter() { stop(); }

void BatchWriter::start() {
    if (!thread_.joinable()) thread_ = std::thread([this] {
        run();
        ended_.store(true);
    });
}

void BatchWriter::stop() {
    {
        std::lock_guard<std::mutex> lk(mu_);  // not on the submit path: this wake must not be lost
        stop_.store(true);
        attention_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

bool BatchWriter::stop_within(std::chrono::milliseconds limit) {
    {
        std::lock_guard<std::mutex> lk(mu_);
        stop_.store(true);
        attention_ = true;
    }
    cv_.notify_all();
    return join_within(thread_, ended_, limit);
}

void BatchWriter::pushed() {
    // seq_cst, as the writer's clear of woken_ and its look at pushed_: one of the two sides sees the other.
    const uint64_t pushed = pushed_.fetch_add(1) + 1;
    const uint64_t done = done_.load(std::memory_order_relaxed);
    // While the writer is in its busy cadence it looks within kBusyWait anyway: no wake. seq_cst against
    // its store of polling_ before it reads pushed_, so a writer going to its long wait either sees this
    // entry or is woken by it. Half a queue waiting wakes it whatever its cadence: a small queue could
    // fill within one short look.
    if (pushed > done && pushed - done >= wake_depth_ &&
        (!polling_.load() || pushed - done >= opt_.queue_capacity / 2) && !woken_.exchange(true)) {
        wakes_.fetch_add(1, std::memory_order_relaxed);
        // Not through the writer's mutex: a writer (nice 10) preempted while holding it would stall
        // slurmctld's thread. A wake falling between the writer's last look and its wait is lost; the
        // writer then looks again at its timer, and woken_ stays set until it does.
        cv_.notify_one();
    }
}

bool BatchWriter::flush_for(std::chrono::milliseconds limit) {
    const uint64_t target = pushed_.load();
    {
        std::lock_guard<std::mutex> lk(mu_);  // as stop(): a flush's wake is never lost
        attention_ = true;
    }
    cv_.notify_all();
    return wait_for_count(target, [&] { return done_.load(); }, limit);
}

void BatchWriter::wait_idle(bool busy) {
    std::unique_lock<std::mutex> lk(mu_);
    woken_.store(false);
    polling_.store(busy);  // before the look at pushed_ (seq_cst; see pushed)
    // Entries counted but not yet in view (a pusher between reserving its cell and publishing it, others
    // past it), or a burst whose wake came before this: a short look, not the idle timer, and no spinning.
    // Otherwise a push reaching the wake depth from here on sees woken_ and polling_ false and wakes the
    // writer (unless it lands before the wait begins: the timer).
    const uint64_t done = done_.load(), pushed = pushed_.load();
    const bool waiting = pushed > done && pushed - done >= wake_depth_;
    if (waiting) polling_.store(true);
    cv_.wait_for(lk, waiting ? kBusyWait : busy ? busy_wait_ : opt_.idle_wait, [&] { return attention_ || woken_.load(); });
    attention_ = false;
}

void BatchWriter::back_off() {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait_for(lk, kBackOff, [&] { return stop_.load(); });
    attention_ = false;
}

void BatchWriter::run() {
    name_this_thread(opt_.thread_name);
    lower_this_thread_priority(10);
    RateLimitedLog errors(opt_.log_interval_seconds);
    OpenFileWatch watch;
    bool open = false;
    // The busy cadence: entered when kWakeDepth / 4 are written between two idle looks, and renewed by
    // volume, not by any batch: kWakeDepth / 4 more within each kBusyHold. A trickle never enters it, and
    // after a burst the writer is back on its idle timer within one kBusyHold.
    auto busy_until = std::chrono::steady_clock::time_point{};
    uint64_t written_in_hold = 0;
    while (true) {
        sink_.tick();
        if (std::string what = open ? watch.changed() : std::string(); !what.empty()) {
            log_warning(sink_.rotated(what));
            sink_.close(true);
            open = false;
            remove_orphan_wal(path_);
            watch.closed();
        }
        if (!sink_.take()) {
            if (stop_.load()) break;
            const bool busy = std::chrono::steady_clock::now() < busy_until;
            if (!busy) {
                written_in_hold = 0;
                sink_.quiet();
            }
            wait_idle(busy);
            continue;
        }
        if (!open) {
            std::string failure;
            try {
                sink_.open();
                open = true;
                watch.opened(path_);
            } catch (const std::exception &ex) {
                failure = ex.what();
            } catch (...) {
                failure = "unknown error";
            }
            if (!open) {
                errors.log(LogLevel::Error, sink_.open_failed(failure));
                sink_.close(false);
                // Drain what is queued so the queue does not fill up behind a broken file; try again later.
                done_.fetch_add(sink_.fail_all());
                back_off();
                continue;
            }
        }
        BatchSink::Batch b;
        std::string failure;
        try {
            sink_.write(b);
        } catch (const std::exception &ex) {
            failure = ex.what();
        } catch (...) {
            failure = "unknown error";
        }
        if (failure.empty()) {
            // The busy look's interval follows the batches: doubled after a small one, halved after a
            // large one (see the header).
            // At most a hold (and the idle timer), so that the writer sees its busy cadence end in time.
            if (b.written < kWakeDepth / 4) busy_wait_ = std::min({opt_.idle_wait, kBusyHold, busy_wait_ * 2});
            else if (b.written >= kWakeDepth) busy_wait_ = std::max(kBusyWait, busy_wait_ / 2);
            written_in_hold += b.written;
            if (written_in_hold >= kWakeDepth / 4) {
                busy_until = std::chrono::steady_clock::now() + kBusyHold;
                written_in_hold = 0;
            }
        } else {
            errors.log(LogLevel::Error, sink_.write_failed(failure));
            sink_.close(false);  // reopened at the next entry
            open = false;
        }
        done_.fetch_add(b.taken);
    }
    if (open) sink_.close(false);
}

}  // namespace jfp
