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

}  // namespace test_periodic_thread
