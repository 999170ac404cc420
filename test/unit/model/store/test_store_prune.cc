#include <ctime>

#include "catch.h"
#include "model/files/sqlite_util.h"
#include "model/sacct/sacct_reader.h"
#include "model/store/history_store.h"
#include "model/util/time_util.h"
#include "test_support.h"

namespace test_store_prune {

using namespace jfp;

namespace {

const char *kExport =
    "JobIDRaw|JobID|User|JobName|Submit|Start|End|State|ReqMem|MaxRSS\n"
    "1|1|amy|a|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:10:00|COMPLETED|1G|\n"
    "1.batch|1.batch||batch|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:10:00|COMPLETED||500M\n"
    "2|2|amy|a|2024-01-01T01:00:00|2024-01-01T01:00:10|2024-01-01T01:05:00|FAILED|1G|\n"
    "3|3|bob|b|2024-01-01T02:00:00|Unknown|Unknown|RUNNING|2G|\n";


}  // namespace

TEST_CASE("store: prune removes ended jobs and old ingest records, keeps jobs not ended and the newest ingest") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::ingest_text(store, kExport);
    test::ingest_text(store, "JobIDRaw|JobID|User|JobName|Submit|Start|End|State\n"
                             "9|9|cy|c|2024-03-01T00:00:00|2024-03-01T00:00:10|2024-03-01T00:10:00|COMPLETED\n"
                             "10|10|cy|c|not a time|x|y|COMPLETED|extra|fields\n");
    const int64_t cutoff = *parse_sacct_time("2024-02-01");
    const int64_t all_ingests = static_cast<int64_t>(std::time(nullptr)) + 3600;
    auto dry = store.prune(cutoff, all_ingests, false);
    CHECK(dry.jobs == 2);              // amy's two
    CHECK(dry.users_emptied == 1);     // amy; bob's job is running, cy's ended after the cutoff
    CHECK(dry.kept == 2);
    CHECK(dry.unfinished_older == 1);  // bob's, submitted before the cutoff, never ended here
    CHECK(dry.ingests == 1);           // the newest of the two stays
    CHECK(store.job_count() == 4);

    auto c = store.prune(cutoff, all_ingests, true);
    CHECK(c.jobs == 2);
    CHECK(store.job_count() == 2);
    CHECK(store.prune_count() == 1);
    auto jobs = test::all_jobs(store);
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[0].user == "bob");
    CHECK(jobs[1].user == "cy");
    Db db(store.path(), SQLITE_OPEN_READONLY);
    Stmt ingests(db, "SELECT count(*), (SELECT count(*) FROM ingest_errors) FROM ingests");
    REQUIRE(ingests.step());
    CHECK(ingests.int_at(0) == 1);
    CHECK(ingests.int_at(1) == 1);  // the newest ingest's bad line stays with it
}

TEST_CASE("store: after a prune that removed the newest rows, change numbers still only go up") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::ingest_text(store, kExport);
    const int64_t before = store.last_change();
    REQUIRE(before > 0);
    CHECK(store.prune(*parse_sacct_time("2030-01-01"), 0, true).jobs == 2);
    test::ingest_text(store, "JobIDRaw|JobID|User|JobName|Submit|Start|End|State\n"
                             "20|20|dee|d|2024-05-01T00:00:00|2024-05-01T00:00:10|2024-05-01T00:10:00|COMPLETED\n");
    CHECK(store.last_change() > before);
    CHECK(store.prune_count() == 1);
}

}  // namespace test_store_prune
