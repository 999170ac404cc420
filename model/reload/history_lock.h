// The lock between submissions reading a published history and the loader writing an ingest's changes
// into it, and the generation that tells a remembered judgement (UpdateRpc's memo) the history moved.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <shared_mutex>

#include "model/reload/published_state.h"

namespace jfp {

class HistoryLock {
public:
    // Shared while a submission reads st's history (no lock when it has none).
    std::shared_lock<std::shared_mutex> read(const PublishedState &st) const {
        return st.history ? std::shared_lock<std::shared_mutex>(mu_) : std::shared_lock<std::shared_mutex>();
    }
    // Exclusive while the loader writes a chunk of changes (a few milliseconds at most).
    void write(const std::function<void()> &change) {
        std::unique_lock<std::shared_mutex> lock(mu_);
        change();
        generation_.fetch_add(1, std::memory_order_release);
    }
    std::shared_lock<std::shared_mutex> read_any() const { return std::shared_lock<std::shared_mutex>(mu_); }
    uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

private:
    mutable std::shared_mutex mu_;
    std::atomic<uint64_t> generation_{0};
};

}  // namespace jfp
