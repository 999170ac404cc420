#include "catch.h"
#include "model/sacct/sacct_reader.h"
#include "model/store/history_store.h"
#include "model/store/ingest_writer.h"
#include "model/store/store_schema.h"
#include "test_support.h"

namespace test_ingest_writer {

using namespace jfp;

namespace {

const char *kExport =
    "JobIDRaw|JobID|User|JobName|Submit|Start|End|State|ReqMem|MaxRSS\n"
    "1|1|amy|a|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:10:00|COMPLETED|1G|\n"
    "1.batch|1.batch||batch|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:10:00|COMPLETED||500M\n"
    "2|2|amy|a|2024-01-01T01:00:00|2024-01-01T01:00:10|2024-01-01T01:05:00|FAILED|1G|\n"
    "3|3|bob|b|2024-01-01T02:00:00|Unknown|Unknown|RUNNING|2G|\n";


}  // namespace

TEST_CASE("store: an overlapping newer export updates; an older one never regresses a final state") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::ingest_text(store, kExport);
    const char *newer = "JobIDRaw|JobID|User|JobName|Submit|Start|End|State\n"
                        "3|3|bob|b|2024-01-01T02:00:00|2024-01-01T02:00:05|2024-01-01T03:00:00|TIMEOUT\n"
                        "4|4|bob|b|2024-01-01T04:00:00|2024-01-01T04:00:05|2024-01-01T04:30:00|COMPLETED\n";
    test::ingest_text(store, newer);
    test::ingest_text(store, kExport);  // the older export again: job 3 must stay TIMEOUT
    auto jobs = test::all_jobs(store);
    REQUIRE(jobs.size() == 4);
    CHECK(jobs[2].job_key == "3");
    CHECK(jobs[2].outcome == Outcome::Timeout);
    CHECK(jobs[2].end > 0);
}

TEST_CASE("store: the same job id on two clusters is two jobs") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    SacctReaderOptions a, b;
    a.cluster = "alpha";
    b.cluster = "beta";
    test::ingest_text(store, kExport, a);
    test::ingest_text(store, kExport, b);
    CHECK(store.job_count() == 6);
}

TEST_CASE("store: a step row ingested before its job row still folds in (OOM verdict, MaxRSS)") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::ingest_text(store, "JobIDRaw|User|Submit|End|State|MaxRSS\n"
                       "9.batch||2024-01-01T00:00:00|2024-01-01T00:01:00|OUT_OF_MEMORY|3G\n");
    CHECK(store.job_count() == 0);  // a step alone is not a job
    test::ingest_text(store, "JobIDRaw|User|Submit|End|State|MaxRSS\n"
                       "9|amy|2024-01-01T00:00:00|2024-01-01T00:01:00|FAILED|\n");
    auto jobs = test::all_jobs(store);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].outcome == Outcome::OutOfMemory);
    CHECK(jobs[0].max_rss_mb == Approx(3072));
}

TEST_CASE("ingest writer: every row written gets the next change number; a rewrite that changes nothing gets none") {
    test::TempDir dir;
    OpenedStore s = open_store_db(dir.file("h.db"), true);
    IngestWriter w(s.db);
    JobRecord j;
    j.cluster = "c";
    j.job_key = "1";
    j.user = "amy";
    j.name = "a";
    j.submit = 100;
    auto id = w.begin("t");
    w.put_job(j);
    j.job_key = "2";
    w.put_job(j);
    w.finish(id, {});
    auto seq_of = [&](const char *key) {
        Stmt q(s.db, "SELECT seq FROM jobs WHERE job_key = ?1");
        q.bind(1, std::string_view(key));
        REQUIRE(q.step());
        return q.int_at(0);
    };
    CHECK(seq_of("1") == 1);
    CHECK(seq_of("2") == 2);
    id = w.begin("t");
    w.put_job(j);  // job 2 again, unchanged
    j.job_key = "1";
    j.state = "COMPLETED";
    w.put_job(j);
    w.finish(id, {});
    CHECK(seq_of("2") == 2);
    CHECK(seq_of("1") == 4);  // the third number went to the unchanged row's write, which kept its own
    CHECK(next_change_seq(s.db) == 5);
}

TEST_CASE("ingest writer: an ingest not finished is rolled back whole") {
    test::TempDir dir;
    OpenedStore s = open_store_db(dir.file("h.db"), true);
    {
        IngestWriter w(s.db);
        JobRecord j;
        j.cluster = "c";
        j.job_key = "1";
        j.user = "amy";
        w.begin("t");
        w.put_job(j);
    }
    Stmt q(s.db, "SELECT count(*) FROM jobs");
    REQUIRE(q.step());
    CHECK(q.int_at(0) == 0);
}

}  // namespace test_ingest_writer
