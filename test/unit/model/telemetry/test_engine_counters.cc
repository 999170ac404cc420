// EngineCounters and its name table: every counter the metrics file names is written with its own value.
#include <set>
#include <string>

#include "catch.h"
#include "model/telemetry/engine_counters.h"
#include "model/telemetry/metrics_file.h"

namespace test_engine_counters {

using namespace jfp;

TEST_CASE("engine counters: each counts alone, and the metrics file writes each named one with its value") {
    EngineCounters c;
    for (size_t i = 0; i < kCounters; ++i) c.add(static_cast<Counter>(i), 1000 + i);
    c.add(Counter::Scored);
    const CounterValues v = c.values();
    for (size_t i = 0; i < kCounters; ++i) CHECK(v[i] == 1000 + i + (static_cast<Counter>(i) == Counter::Scored ? 1 : 0));
    CHECK(c.get(Counter::Rejected) == 1000 + static_cast<size_t>(Counter::Rejected));

    MetricsSnapshot m;
    m.cluster = "c";
    m.counts = v;
    const std::string text = prometheus_text(m);
    std::set<std::pair<std::string, std::string>> seen;  // a family's label value is named once
    std::set<size_t> named;
    for (const CounterName &n : kCounterNames) {
        CHECK(seen.emplace(n.family, n.value ? n.value : "").second);
        CHECK(named.insert(static_cast<size_t>(n.counter)).second);
        const std::string sample = std::string(n.family) + "{cluster=\"c\"" +
                                   (n.label ? std::string(",") + n.label + "=\"" + n.value + "\"" : std::string()) + "} " +
                                   std::to_string(v[static_cast<size_t>(n.counter)]) + "\n";
        INFO(sample);
        CHECK(text.find(sample) != std::string::npos);
        CHECK(text.find(std::string("# TYPE ") + n.family + " counter\n") != std::string::npos);
    }
}

}  // namespace test_engine_counters
