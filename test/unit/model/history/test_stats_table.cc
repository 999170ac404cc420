#include <random>
#include <unordered_map>
#include <vector>

#include "catch.h"
#include "model/history/history.h"
#include "model/history/stats_table.h"

namespace test_stats_table {

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

TEST_CASE("stats table: a rehash built beside readers and adopted equals growing in place; a stale one is refused") {
    StatsTable t, ref;
    for (uint64_t k = 1; k <= 12; ++k) t[k * 0x9e3779b97f4a7c15ull] = ref[k * 0x9e3779b97f4a7c15ull] = stats_with(static_cast<uint32_t>(k));
    CHECK_FALSE(t.rehashed_for(12));  // room already: nothing built
    auto r = t.rehashed_for(5000);
    REQUIRE(r);
    size_t before = t.slot_count();
    t.adopt(std::move(r));
    CHECK(t.slot_count() > before);
    for (uint64_t k = 13; k <= 3000; ++k) t[k * 0x9e3779b97f4a7c15ull] = ref[k * 0x9e3779b97f4a7c15ull] = stats_with(static_cast<uint32_t>(k));
    CHECK(t == ref);
    for (uint64_t k = 1; k <= 3000; ++k) CHECK(t.locate(k * 0x9e3779b97f4a7c15ull) != StatsTable::kNone);

    // Built, then a key added before the swap: its slots lack that key, so adopt keeps the table as is.
    auto stale = t.rehashed_for(100000);
    REQUIRE(stale);
    t[42] = stats_with(42);
    size_t slots = t.slot_count();
    t.adopt(std::move(stale));
    CHECK(t.slot_count() == slots);
    REQUIRE(t.find(42) != nullptr);
    CHECK(t.find(42)->n == 42);
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

TEST_CASE("history index: lookup hands each of the five keys its own stats (the prefetched path)") {
    jfp::HistoryIndex idx;
    auto add = [&](const char *user, const char *name, const char *partition, const char *account, int times) {
        for (int i = 0; i < times; ++i) {
            jfp::JobRecord j;
            j.user = user;
            j.name = name;
            j.partition = partition;
            j.account = account;
            j.end = 1000 + i;
            j.outcome = jfp::Outcome::Completed;
            idx.add(j);
        }
    };
    add("amy", "sim_1", "pa", "ax", 1);
    add("amy", "sim_2", "pb", "ax", 2);
    add("amy", "other", "pb", "ay", 8);
    add("bob", "sim_1", "pa", "ax", 4);
    jfp::JobRequest r;
    r.user = "amy";
    r.name = "sim_1";
    r.partition = "pa";
    r.account = "ax";
    auto v = idx.lookup(r);
    REQUIRE(v.user_name);
    REQUIRE(v.user_stem);
    REQUIRE(v.user);
    REQUIRE(v.partition);
    REQUIRE(v.account);
    CHECK(v.user_name->n == 1);   // amy's sim_1
    CHECK(v.user_stem->n == 3);   // amy's sim_*
    CHECK(v.user->n == 11);       // all of amy's
    CHECK(v.partition->n == 5);   // everyone's in pa
    CHECK(v.account->n == 7);     // everyone's in ax
    CHECK(v.loaded);
    r.partition.clear();
    r.account = "nobody-uses-this";
    r.name = "never_seen";
    auto w = idx.lookup(r);
    CHECK(w.user_name == nullptr);
    CHECK(w.user_stem == nullptr);
    CHECK(w.user == v.user);
    CHECK(w.partition == nullptr);  // none given: not looked up
    CHECK(w.account == nullptr);
}

}  // namespace test_stats_table
