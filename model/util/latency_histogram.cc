#include "model/util/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace jfp {

int LatencyHistogram::bucket(uint64_t ns) {
    if (ns < 4) return static_cast<int>(ns);
    int msb = 63 - __builtin_clzll(ns);
    int sub = static_cast<int>((ns >> (msb - 2)) & 3);  // the two bits below the leading one
    int b = 4 * (msb - 1) + sub;
    return b < kBuckets ? b : kBuckets - 1;
}

double LatencyHistogram::upper_bound_ns(int b) {
    if (b < 4) return b + 1;
    int msb = b / 4 + 1;
    int sub = b % 4;
    return std::ldexp(1.0, msb) * (1.0 + (sub + 1) / 4.0);
}

LatencyHistogram::Summary LatencyHistogram::take() {
    std::array<uint64_t, kBuckets> delta{};
    Summary s;
    for (int b = 0; b < kBuckets; ++b) {
        uint64_t now = buckets_[static_cast<size_t>(b)].load(std::memory_order_relaxed);
        delta[static_cast<size_t>(b)] = now - seen_[static_cast<size_t>(b)];
        seen_[static_cast<size_t>(b)] = now;
        s.count += delta[static_cast<size_t>(b)];
    }
    s.max_us = static_cast<double>(max_.exchange(0, std::memory_order_relaxed)) / 1000.0;
    if (s.count == 0) return s;
    auto quantile = [&](double q) {
        auto want = static_cast<uint64_t>(std::ceil(q * static_cast<double>(s.count)));
        uint64_t acc = 0;
        for (int b = 0; b < kBuckets; ++b) {
            acc += delta[static_cast<size_t>(b)];
            if (acc >= want && acc > 0) return upper_bound_ns(b) / 1000.0;
        }
        return upper_bound_ns(kBuckets - 1) / 1000.0;
    };
    // A bucket's upper edge can lie above every value in it: never report a percentile above the maximum
    // (seen: "p50 98.3 us, p99 98.3 us, max 89.0 us" for one submission).
    s.p50_us = std::min(quantile(0.5), s.max_us);
    s.p99_us = std::min(quantile(0.99), s.max_us);
    return s;
}

}  // namespace jfp
