// LatencyHistogram: job_submit's time inside slurmctld, as the stats line and the metrics file say it.
#include "catch.h"
#include "model/util/latency_histogram.h"

namespace test_latency_histogram {

using namespace jfp;

TEST_CASE("latency histogram: buckets within 25%, quantiles of what was recorded since the last take") {
    for (uint64_t ns : {1ull, 3ull, 4ull, 5ull, 999ull, 1000ull, 1024ull, 20000ull, 123456789ull}) {
        int b = LatencyHistogram::bucket(ns);
        INFO(ns);
        CHECK(LatencyHistogram::upper_bound_ns(b) > static_cast<double>(ns));
        CHECK(LatencyHistogram::upper_bound_ns(b) <= static_cast<double>(ns) * 1.25 + 1);
        if (b > 0) CHECK(LatencyHistogram::upper_bound_ns(b - 1) <= static_cast<double>(ns));
    }
    LatencyHistogram h;
    for (int i = 0; i < 98; ++i) h.record(20000);  // 20 us
    h.record(500000);                               // 500 us
    h.record(900000);                               // 900 us
    auto s = h.take();
    CHECK(s.count == 100);
    CHECK(s.p50_us >= 20.0);
    CHECK(s.p50_us < 25.0);
    CHECK(s.p99_us >= 500.0);
    CHECK(s.p99_us < 625.0);
    CHECK(s.max_us == Approx(900.0));
    auto again = h.take();
    CHECK(again.count == 0);
    h.record(1000);
    CHECK(h.take().count == 1);
    // One submission of 89 us: its bucket's upper edge is 98.3 us, but no percentile exceeds the maximum.
    h.record(89000);
    auto one = h.take();
    CHECK(one.max_us == Approx(89.0));
    CHECK(one.p50_us == Approx(89.0));
    CHECK(one.p99_us == Approx(89.0));
}

}  // namespace test_latency_histogram
