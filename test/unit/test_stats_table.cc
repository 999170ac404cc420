#include <random>
#include <unordered_map>
#include <vector>

#include "catch.h"
#include "model/stats_table.h"

using jfp::HistoryStats;
using jfp::StatsTable;

namespace {
HistoryStats stats_with(uint32_t n) {
    HistoryStats s;
    s.n = n;
    s.last_end = n * 7;
    return s;
}
}  // namespace

TEST_CASE("stats table: agrees with std::unordered_map over random keys, through every growth") {
    std::mt19937_64 rng(11);
    StatsTable t;
    std::unordered_map<uint64_t, uint32_t> ref;
    // Keys that share their low bits collide on the same home slot: probing must still tell them apart.
    std::vector<uint64_t> keys;
    for (int i = 0; i < 3000; ++i) keys.push_back(rng());
    for (int i = 0; i < 500; ++i) keys.push_back((rng() << 20) | 5);
    keys.push_back(0);  // zero is an ordinary key
    for (size_t round = 0; round < 3; ++round)
        for (uint64_t k : keys) {
            t[k].n += 1;
            ref[k] += 1;
        }
    CHECK(t.size() == ref.size());
    for (const auto &[k, n] : ref) {
        const HistoryStats *s = t.find(k);
        REQUIRE(s != nullptr);
        CHECK(s->n == n);
        CHECK(t.locate(k) != StatsTable::kNone);
    }
    size_t absent = 0;
    for (int i = 0; i < 3000; ++i) {
        uint64_t k = rng();
        if (!ref.count(k)) absent += t.find(k) == nullptr && t.locate(k) == StatsTable::kNone;
        else ++absent;
    }
    CHECK(absent == 3000);
    CHECK(StatsTable().find(42) == nullptr);  // an empty table has no slots at all
}

TEST_CASE("stats table: a value's address survives growth (HistoryView keeps pointers)") {
    StatsTable t;
    t[1] = stats_with(1);
    const HistoryStats *first = t.find(1);
    for (uint64_t k = 2; k < 50000; ++k) t[k * 0x9e3779b97f4a7c15ull] = stats_with(static_cast<uint32_t>(k));
    CHECK(t.find(1) == first);
    CHECK(first->n == 1);
}

TEST_CASE("stats table: equality ignores insertion order and capacity; copies are deep, moves leave it empty") {
    StatsTable a, b;
    b.reserve(100000);
    for (uint32_t k = 0; k < 1000; ++k) a[k * 31 + 1] = stats_with(k);
    for (uint32_t k = 1000; k-- > 0;) b[k * 31 + 1] = stats_with(k);
    CHECK(a == b);
    b[31 * 5 + 1].n += 1;
    CHECK_FALSE(a == b);
    b[31 * 5 + 1].n -= 1;
    CHECK(a == b);
    b[999999] = stats_with(1);  // one key more
    CHECK_FALSE(a == b);

    StatsTable c = a;
    c[1].n = 77;
    CHECK(a.find(1)->n == 0);
    StatsTable d = std::move(c);
    CHECK(d.find(1)->n == 77);
    CHECK(c.size() == 0);  // NOLINT: a moved-from table is empty and usable
    CHECK(c.find(1) == nullptr);
    c[5].n = 3;
    CHECK(c.size() == 1);
    CHECK(c.find(5)->n == 3);
}
