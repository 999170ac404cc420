// The feature log's writer and the submit path: a submission never waits for it, and wakes it (a system
// call on slurmctld's thread) only in a burst.
#include "catch.h"

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "model/scoring/feature_log.h"
#include "test_support.h"

using namespace jfp;

namespace {

FeatureLogEntry entry(int i) {
    FeatureLogEntry e;
    e.token = "tok" + std::to_string(i);
    e.model_id = std::make_shared<const std::string>("m");
    e.x.fill(static_cast<float>(i));
    return e;
}

// Waits (at most a minute: a condition that must come, not a timing) until the writer has written n.
bool written_within(const FeatureLogWriter &w, uint64_t n) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (w.written() < n) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

}  // namespace

TEST_CASE("feature log writer: a submission wakes it only once a burst of kWakeDepth waits") {
    test::TempDir dir;
    // An hour between the timer's looks when idle: only a wake drains a burst.
    FeatureLogWriter w(dir.file("f.db"), 4096, FeatureLogWriter::kMaxHeadsInUse, std::chrono::hours(1));
    REQUIRE(w.push(entry(0)));
    w.flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // it goes back to sleep (asserted or not below)
    const int depth = static_cast<int>(FeatureLogWriter::kWakeDepth);
    int pushed = 1;
    for (; pushed < depth; ++pushed) REQUIRE(w.push(entry(pushed)));
    CHECK(w.wakes() == 0);  // kWakeDepth - 1 waiting: no wake, whatever the writer does
    REQUIRE(w.push(entry(pushed++)));
    // Woken, unless it was still awake and had already written some of them.
    CHECK((w.wakes() == 1 || w.written() > 1));
    // With an hour's timer, the burst is written because of the wake.
    REQUIRE(written_within(w, static_cast<uint64_t>(pushed)));

    // A second burst: one more wake at most, never one per entry. Ended by a flush, whose wake is never
    // lost (the writer's short look after the first burst may have taken part of it, leaving less than
    // kWakeDepth waiting, and the timer is an hour).
    for (int i = 0; i < depth; ++i) REQUIRE(w.push(entry(pushed++)));
    CHECK(w.wakes() <= 2);
    w.flush();
    CHECK(w.written() == static_cast<uint64_t>(pushed));
    CHECK(w.dropped() == 0);
}

TEST_CASE("feature log writer: a queue smaller than twice kWakeDepth wakes it at half its capacity") {
    test::TempDir dir;
    FeatureLogWriter w(dir.file("f.db"), 8, FeatureLogWriter::kMaxHeadsInUse, std::chrono::hours(1));
    REQUIRE(w.push(entry(0)));
    w.flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (int i = 1; i < 4; ++i) REQUIRE(w.push(entry(i)));
    CHECK(w.wakes() == 0);
    REQUIRE(w.push(entry(4)));
    CHECK((w.wakes() == 1 || w.written() > 1));
    // Without the wake at 4, an 8-entry queue would fill and drop for the hour the timer sleeps.
    REQUIRE(written_within(w, 5));
    CHECK(w.dropped() == 0);
}

TEST_CASE("feature log writer: a trickle is written by the timer, at most one wake per kWakeDepth entries") {
    test::TempDir dir;
    FeatureLogWriter w(dir.file("f.db"), 1024);
    const int n = 100;
    for (int i = 0; i < n; ++i) {
        REQUIRE(w.push(entry(i)));
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    REQUIRE(written_within(w, n));
    // 2 ms apart, the 50 ms timer keeps the queue far below kWakeDepth (a writer starved past 128 ms may
    // see one wake). Waking every 32 entries, as before, would be 3.
    CHECK(w.wakes() <= 1);
}

TEST_CASE("feature log writer: from many threads at once, wakes stay a small share of the entries and none is lost") {
    test::TempDir dir;
    const uint64_t per_thread = 5000;
    const int threads = 4;
    FeatureLogWriter w(dir.file("f.db"), 1 << 16);
    std::vector<std::thread> pushers;
    for (int t = 0; t < threads; ++t)
        pushers.emplace_back([&, t] {
            for (uint64_t i = 0; i < per_thread; ++i) w.push(entry(static_cast<int>(t * per_thread + i)));
        });
    for (auto &p : pushers) p.join();
    w.flush();
    const uint64_t total = per_thread * threads;
    CHECK(w.written() + w.dropped() == total);
    CHECK(w.dropped() == 0);
    // A wake needs kWakeDepth entries counted and not yet written, and clears only when the writer next
    // goes to its wait (a short one while entries are counted but not yet visible in the queue).
    CHECK(w.wakes() <= total / FeatureLogWriter::kWakeDepth + 1);
}

TEST_CASE("feature log writer: a stream it is already draining does not wake it again") {
    test::TempDir dir;
    FeatureLogWriter w(dir.file("f.db"), 1 << 16);
    // Back to back from one thread, far faster than the writer writes: after the first burst's wake the
    // writer looks every kBusyWait by itself, and a wake would only put a futex call on a submission.
    const uint64_t n = 20000;
    for (uint64_t i = 0; i < n; ++i) REQUIRE(w.push(entry(static_cast<int>(i))));
    w.flush();
    CHECK(w.written() == n);
    INFO("wakes: " << w.wakes());
    // One for the first burst; one more each time this thread, descheduled past kBusyHold, let the writer
    // fall back to its long wait (twice allowed: sanitizer builds run slowly). The rule before (wake
    // whenever kWakeDepth waited again) woke it 5 times here.
    CHECK(w.wakes() <= 3);
}

TEST_CASE("feature log writer: a burst's script heads are kept while it lasts and trimmed once the writer is quiet") {
    test::TempDir dir;
    FeatureLogWriter w(dir.file("f.db"), 4096);
    const std::string script = "#!/bin/bash\n#SBATCH -n 4\nsrun ./a.out\n";
    const int n = 600;  // past the idle heads kept, all out at once: taken before any is pushed
    std::vector<FeatureLogEntry> burst;
    for (int i = 0; i < n; ++i) {
        burst.push_back(entry(i));
        burst.back().script = w.defer(script);
        REQUIRE(burst.back().script.pending());
    }
    auto t0 = std::chrono::steady_clock::now();
    for (auto &e : burst) REQUIRE(w.push(std::move(e)));
    burst.clear();
    w.flush();
    CHECK(w.heads_in_use() == 0);
    // Right after the burst its blocks wait for the next one. The writer cannot trim before kBusyHold
    // has passed since a commit after t0, so a count read before that is the burst's (a slower run
    // skips the check: it cannot tell).
    const size_t idle = w.heads_idle();
    if (std::chrono::steady_clock::now() - t0 < FeatureLogWriter::kBusyHold) CHECK(idle > FeatureLogWriter::kIdleHeads);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (w.heads_idle() > FeatureLogWriter::kIdleHeads && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    CHECK(w.heads_idle() == FeatureLogWriter::kIdleHeads);
    CHECK(w.written() == static_cast<uint64_t>(n));
}

TEST_CASE("feature log writer: after a burst, a trickle returns it to its idle timer and trims the heads") {
    test::TempDir dir;
    FeatureLogWriter w(dir.file("f.db"), 4096);
    const std::string script = "#!/bin/bash\nsrun ./a.out\n";
    std::vector<FeatureLogEntry> burst;
    for (int i = 0; i < 600; ++i) {  // all deferred before any push: 600 heads out at once
        burst.push_back(entry(i));
        burst.back().script = w.defer(script);
    }
    for (auto &e : burst) REQUIRE(w.push(std::move(e)));
    burst.clear();
    w.flush();
    // One entry every 20 ms: fewer than kWakeDepth / 4 within a hold, so the busy cadence ends and the
    // burst's blocks are trimmed while the trickle goes on (a hold renewed by any batch never trimmed).
    bool trimmed = false;
    for (int i = 0; i < 100 && !trimmed; ++i) {
        FeatureLogEntry e = entry(1000 + i);
        e.script = w.defer(script);
        REQUIRE(w.push(std::move(e)));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        trimmed = w.heads_idle() <= FeatureLogWriter::kIdleHeads;
    }
    CHECK(trimmed);
}

TEST_CASE("feature log writer: rows left out by a spent budget count as done; they do not keep waking it") {
    test::TempDir dir;
    auto budget = std::make_shared<UserWriteBudget>(1);  // the first row spends the day
    // An 8-entry queue wakes the writer at 4 waiting; an hour's timer: only wakes and flushes drain.
    FeatureLogWriter w(dir.file("f.db"), 8, FeatureLogWriter::kMaxHeadsInUse, std::chrono::hours(1), budget);
    for (int i = 0; i < 20; ++i) {
        FeatureLogEntry e = entry(i);
        e.uid = 7;
        REQUIRE(w.push(std::move(e)));
        w.flush();
    }
    REQUIRE(w.over_budget() >= 19);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    // Three waiting, under the wake depth of 4. Counted as not done, the 19 left out made every push a
    // wake, and kept the writer looking every 2 ms for good.
    for (int i = 20; i < 23; ++i) {
        FeatureLogEntry e = entry(i);
        e.uid = 7;
        REQUIRE(w.push(std::move(e)));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(w.wakes() == 0);
    w.flush();
    CHECK(w.written() + w.over_budget() == 23);
}
