#include "catch.h"
#include "model/sacct/sacct_reader.h"
#include "model/store/history_store.h"
#include "model/util/time_util.h"
#include "test_support.h"

namespace test_history_store {

using namespace jfp;

namespace {

const char *kExport =
    "JobIDRaw|JobID|User|JobName|Submit|Start|End|State|ReqMem|MaxRSS\n"
    "1|1|amy|a|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:10:00|COMPLETED|1G|\n"
    "1.batch|1.batch||batch|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:10:00|COMPLETED||500M\n"
    "2|2|amy|a|2024-01-01T01:00:00|2024-01-01T01:00:10|2024-01-01T01:05:00|FAILED|1G|\n"
    "3|3|bob|b|2024-01-01T02:00:00|Unknown|Unknown|RUNNING|2G|\n";


}  // namespace

TEST_CASE("store: re-ingesting the same export never duplicates") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::ingest_text(store, kExport);
    test::ingest_text(store, kExport);
    auto jobs = test::all_jobs(store);
    REQUIRE(jobs.size() == 3);
    CHECK(store.job_count() == 3);
    CHECK(jobs[0].job_key == "1");
    CHECK(jobs[0].max_rss_mb == Approx(500));
    CHECK(jobs[1].outcome == Outcome::Failed);
}

TEST_CASE("store: ended jobs come back in end order; unfinished ones are not history") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::ingest_text(store, kExport);
    std::vector<std::string> keys;
    store.for_each_ended_job([&](JobRecord &&j) { keys.push_back(j.job_key); });
    CHECK(keys == std::vector<std::string>{"1", "2"});
    REQUIRE(store.latest_end());
    CHECK(*store.latest_end() == *parse_sacct_time("2024-01-01T01:05:00"));
}

TEST_CASE("store: a store opened read-only refuses every write with the path and says so") {
    test::TempDir dir;
    const std::string db = dir.file("h.db");
    { HistoryStore create(db, HistoryStore::Access::ReadWrite); }
    HistoryStore ro(db, HistoryStore::Access::ReadOnly);
    for (int op = 0; op < 3; ++op) {
        try {
            if (op == 0) ro.begin_ingest("t");
            if (op == 1) ro.replace_queue_tokens({{"1", "t"}});
            if (op == 2) ro.prune(0, 0, true);
            FAIL("expected an error");
        } catch (const SqliteError &e) {
            CHECK(std::string(e.what()) == db + ": opened read-only");
        }
    }
    CHECK(ro.prune(0, 0, false).jobs == 0);  // counting alone is a read
}

TEST_CASE("store: counts of labeled jobs and the submit time at an offset") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::ingest_text(store, kExport);
    CHECK(store.count_labeled(std::nullopt) == 2);  // job 3 is still running
    const int64_t t1 = *parse_sacct_time("2024-01-01T01:00:00");
    CHECK(store.count_labeled(t1) == 1);  // job 2 was submitted at t1, not before it
    REQUIRE(store.labeled_submit_at(1, std::nullopt));
    CHECK(*store.labeled_submit_at(1, std::nullopt) == t1);
    CHECK_FALSE(store.labeled_submit_at(2, std::nullopt));
}

}  // namespace test_history_store
