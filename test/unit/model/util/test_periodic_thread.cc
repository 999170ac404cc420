// PeriodicThread: the first run is waited for, a kick runs the task without waiting for the interval, and
// nothing runs after stop().
#include <atomic>
#include <chrono>
#include <thread>

#include "catch.h"
#include "model/util/periodic_thread.h"

namespace test_periodic_thread {

using namespace jfp;
using namespace std::chrono_literals;

namespace {

template <class P>
bool eventually(P pred) {
    for (int i = 0; i < 1000 && !pred(); ++i) std::this_thread::sleep_for(10ms);
    return pred();
}

}  // namespace

TEST_CASE("periodic thread: first run waited for; a kick runs it before an hour's interval; none after stop") {
    std::atomic<int> firsts{0}, rounds{0};
    PeriodicThread t;
    t.start("jfp-test", [&](bool first) {
        if (first) {
            std::this_thread::sleep_for(50ms);
            ++firsts;
        } else {
            ++rounds;
        }
    }, [] { return std::chrono::milliseconds(3600 * 1000); });
    CHECK(t.wait_first(10s));
    CHECK(firsts == 1);
    CHECK(rounds == 0);
    t.kick();
    CHECK(eventually([&] { return rounds.load() >= 1; }));
    for (int i = 0; i < 1000; ++i) t.kick();  // a burst of kicks from many submissions: no kick is lost for good
    CHECK(eventually([&] { return rounds.load() >= 2; }));
    t.stop();
    const int after = rounds.load();
    t.kick();
    std::this_thread::sleep_for(50ms);
    CHECK(rounds.load() == after);
    CHECK(firsts == 1);
}

TEST_CASE("periodic thread: the interval alone runs the task; wait_first says false when its limit passes first") {
    std::atomic<int> rounds{0};
    std::atomic<bool> release{false};
    PeriodicThread t;
    t.start("jfp-test", [&](bool first) {
        if (first) {
            while (!release.load()) std::this_thread::sleep_for(1ms);
        } else {
            ++rounds;
        }
    }, [] { return std::chrono::milliseconds(20); });
    CHECK_FALSE(t.wait_first(30ms));
    release = true;
    CHECK(t.wait_first(10s));
    CHECK(eventually([&] { return rounds.load() >= 3; }));
}

TEST_CASE("periodic thread: at exit it ends within the limit, or is left detached past it without waiting") {
    SECTION("idle: ended and joined at once; the task is not run again") {
        std::atomic<int> rounds{0};
        PeriodicThread t;
        t.start("jfp-test", [&](bool) { ++rounds; }, [] { return std::chrono::milliseconds(3600 * 1000); });
        REQUIRE(t.wait_first(10s));
        auto t0 = std::chrono::steady_clock::now();
        CHECK(t.stop_within(5000ms));
        CHECK(std::chrono::steady_clock::now() - t0 < 1s);
        t.kick();
        std::this_thread::sleep_for(50ms);
        CHECK(rounds == 1);
    }
    SECTION("in a long task (a history load): false after the limit, not after the task") {
        std::atomic<bool> release{false}, ran{false};
        PeriodicThread t;
        // Bounded, so that a stop_within that waited for the task fails the checks below instead of hanging.
        t.start("jfp-test", [&](bool) {
            ran = true;
            const auto end = std::chrono::steady_clock::now() + 10s;
            while (!release.load() && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(1ms);
        }, [] { return std::chrono::milliseconds(3600 * 1000); });
        REQUIRE(eventually([&] { return ran.load(); }));
        auto t0 = std::chrono::steady_clock::now();
        CHECK_FALSE(t.stop_within(100ms));
        auto took = std::chrono::steady_clock::now() - t0;
        CHECK(took >= 100ms);
        CHECK(took < 5s);
        // The detached thread still uses t: it must end before t goes (at exit, the process ends instead).
        release = true;
        std::this_thread::sleep_for(200ms);
    }
}

}  // namespace test_periodic_thread
