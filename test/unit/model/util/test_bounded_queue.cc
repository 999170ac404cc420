// BoundedQueue: what the submit path hands to the background writers.
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "catch.h"
#include "model/util/bounded_queue.h"

namespace test_bounded_queue {

using namespace jfp;

TEST_CASE("queue: bounded, never blocks, nothing lost or duplicated across threads") {
    BoundedQueue<int> q(1000);
    CHECK(q.capacity() == 1024);
    std::atomic<int> pushed{0}, refused{0};
    std::vector<std::thread> producers;
    for (int t = 0; t < 4; ++t)
        producers.emplace_back([&, t] {
            for (int i = 0; i < 20000; ++i) {
                if (q.try_push(t * 100000 + i)) ++pushed;
                else ++refused;
            }
        });
    std::vector<int> seen;
    std::atomic<bool> done{false};
    std::thread consumer([&] {
        int v;
        while (!done.load()) {
            if (q.try_pop(v)) seen.push_back(v);
        }
    });
    for (auto &p : producers) p.join();
    done = true;
    consumer.join();
    int v;
    while (q.try_pop(v)) seen.push_back(v);
    CHECK(static_cast<int>(seen.size()) == pushed.load());
    CHECK(pushed + refused == 80000);
    std::sort(seen.begin(), seen.end());
    CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
    BoundedQueue<int> none(0);
    CHECK_FALSE(none.try_push(1));
}

}  // namespace test_bounded_queue
