// What updates cost inside slurmctld, beside job_submit's histogram: the time jfp spent on each record an
// update reached, and on each update RPC in all (its records summed). slurmctld holds its job write lock
// through the whole RPC, so the per-RPC time is what other RPCs wait for.
//
// The plugin sees records, not RPCs: a record starts a new RPC when its UpdateRpc says so (update_rpc.h). The
// open RPC's total is recorded when the next RPC starts, or by the background thread once no record has come
// for idle_ns (an RPC whose records came further apart than that is counted as two).
#pragma once

#include <atomic>
#include <cstdint>

#include "model/request/update_rpc.h"
#include "model/util/latency_histogram.h"

namespace jfp {

class UpdateLatency {
public:
    // A record of RPC rpc_id took ns and ended at end_ns (CLOCK_MONOTONIC).
    void add(uint64_t rpc_id, uint64_t ns, uint64_t end_ns) {
        if (open_id_.load(std::memory_order_relaxed) != rpc_id) {
            close_open();
            open_id_.store(rpc_id, std::memory_order_relaxed);
        }
        open_ns_.fetch_add(ns, std::memory_order_relaxed);
        open_last_.store(end_ns, std::memory_order_relaxed);
        per_record.record(ns);
    }
    // The background thread: the open RPC is over when no record came for idle_ns.
    void close_idle(uint64_t now_ns, uint64_t idle_ns) {
        if (now_ns - open_last_.load(std::memory_order_relaxed) >= idle_ns) close_open();
    }
    LatencyHistogram per_rpc, per_record;
    static constexpr uint64_t kIdleNs = UpdateRpc::kGapNs;  // records of one RPC come microseconds apart

private:
    void close_open() {
        if (uint64_t total = open_ns_.exchange(0, std::memory_order_relaxed)) per_rpc.record(total);
    }
    std::atomic<uint64_t> open_id_{0}, open_ns_{0}, open_last_{0};
};

}  // namespace jfp
