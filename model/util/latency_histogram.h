// Where the submit path's time goes, measured inside slurmctld itself: a lock-free histogram of
// job_submit durations that the background thread summarises into slurmctld's log every
// stats_interval. Buckets are quarter-octaves of nanoseconds (at most 19% apart), enough to tell 20 us
// from 200 us, and recording is two relaxed atomic adds.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

namespace jfp {

class LatencyHistogram {
public:
    static constexpr int kBuckets = 4 * 40;  // up to 2^40 ns

    void record(uint64_t ns) {
        buckets_[static_cast<size_t>(bucket(ns))].fetch_add(1, std::memory_order_relaxed);
        uint64_t m = max_.load(std::memory_order_relaxed);
        while (ns > m && !max_.compare_exchange_weak(m, ns, std::memory_order_relaxed)) {
        }
    }

    struct Summary {
        uint64_t count = 0;
        double p50_us = 0, p99_us = 0, max_us = 0;
    };
    // What was recorded since the previous call (one caller: the background thread).
    Summary take();

    // Everything recorded into bucket b since the start (take() does not reset it).
    uint64_t cumulative(int b) const { return buckets_[static_cast<size_t>(b)].load(std::memory_order_relaxed); }

    static int bucket(uint64_t ns);
    static double upper_bound_ns(int bucket);  // a bucket's upper edge, what the summary reports

private:
    std::array<std::atomic<uint64_t>, kBuckets> buckets_{};
    std::array<uint64_t, kBuckets> seen_{};
    std::atomic<uint64_t> max_{0};
};

}  // namespace jfp
