// ScriptHeadPool: the blocks a submission's deferred script scan borrows, capped and reused.
#include <atomic>
#include <thread>
#include <vector>

#include "catch.h"
#include "model/archive/script_head_pool.h"

namespace test_script_head_pool {

using namespace jfp;

TEST_CASE("script head pool: caps blocks in use, keeps a burst's blocks until trimmed, reuses the last returned first, from many threads") {
    ScriptHeadPool pool(8, 4);
    std::vector<char *> held;
    for (int i = 0; i < 8; ++i) {
        char *b = pool.acquire();
        REQUIRE(b != nullptr);
        b[0] = 'a';
        b[ScriptHeadPool::block_size() - 1] = 'z';  // the whole block is usable
        held.push_back(b);
    }
    CHECK(pool.acquire() == nullptr);
    CHECK(pool.in_use() == 8);
    char *first = held[0];
    pool.release(first);
    CHECK(pool.in_use() == 7);
    CHECK(pool.acquire() == first);  // an idle block comes back before a new one is allocated
    for (char *b : held) pool.release(b);
    CHECK(pool.in_use() == 0);
    CHECK(pool.idle() == 8);  // a burst's blocks stay for the next burst: no malloc on the submit path
    pool.trim();              // the writer, once quiet: back to max_idle, the oldest freed
    CHECK(pool.idle() == 4);
    CHECK(pool.acquire() == held.back());
    pool.release(held.back());
    pool.trim();
    CHECK(pool.idle() == 4);
    pool.release(nullptr);
    CHECK(pool.in_use() == 0);
    // Last in, first out: the block returned last, the one likeliest still in cache, is reused first.
    char *x = pool.acquire(), *y = pool.acquire();
    pool.release(x);
    pool.release(y);
    CHECK(pool.acquire() == y);
    CHECK(pool.acquire() == x);
    pool.release(x);
    pool.release(y);
    CHECK(pool.in_use() == 0);

    // Submit threads take, the writer returns: the count stays exact and never passes the cap.
    std::atomic<size_t> held_now{0}, peak{0}, refused{0};
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; ++t)
        ts.emplace_back([&] {
            for (int i = 0; i < 20000; ++i) {
                char *b = pool.acquire();
                if (!b) {
                    refused.fetch_add(1);
                    continue;
                }
                size_t now = held_now.fetch_add(1) + 1, seen = peak.load();
                while (now > seen && !peak.compare_exchange_weak(seen, now)) {
                }
                held_now.fetch_sub(1);
                pool.release(b);
            }
        });
    for (auto &t : ts) t.join();
    CHECK(pool.in_use() == 0);
    CHECK(peak.load() <= 8);
}

}  // namespace test_script_head_pool
