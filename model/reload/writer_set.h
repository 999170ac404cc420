// The background writers a config names (the feature log, the script archive) and the one per-user write
// budget they share. A config that names other files gets new writers; the old ones are retired, and closed
// once no published state (so no submission in flight) holds them.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "model/archive/user_write_budget.h"
#include "model/reload/published_state.h"

namespace jfp {

class WriterSet {
public:
    // enabled false: no writer is started (tests that drive the engine without threads).
    explicit WriterSet(bool enabled) : enabled_(enabled) {}
    // Writers as config names them, in w (before the state holding it is published, so that a job scored
    // under a config that names an archive finds its writer). True when w changed.
    bool follow(const Config &config, EngineWriters &w);
    // Called by the loader after publishing: writers no state holds any more are closed (their queues written).
    void close_retired();
    // Writers alive: the current ones and the retired ones still held.
    size_t live() const { return live_.load(); }
    const UserWriteBudget &budget() const { return *budget_; }
    // What w's writers hold in memory, written within limit in all; false when the limit passed first.
    static bool flush(const EngineWriters &w, std::chrono::milliseconds limit);
    // slurmctld's exit: w's writer threads ended within limit in all (each writes its queue first).
    static bool stop_within(const EngineWriters &w, std::chrono::milliseconds limit);

    static constexpr size_t kArchiveQueueEntries = 65536;  // the byte budget (jfp.conf) usually binds first

private:
    template <class W> void replace(std::shared_ptr<W> &slot, std::shared_ptr<W> next);

    const bool enabled_;
    std::vector<std::shared_ptr<void>> retired_;
    std::atomic<size_t> live_{0};
    std::string feature_log_path_, script_archive_path_;
    int64_t script_archive_bytes_ = 0;
    // Both writers' per-user day; one for the engine's life: a reload or a new file gives no day back.
    const std::shared_ptr<UserWriteBudget> budget_ = std::make_shared<UserWriteBudget>(Config().user_write_bytes_per_day);
};

}  // namespace jfp
