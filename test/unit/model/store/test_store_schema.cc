#include <fstream>

#include <unistd.h>

#include "catch.h"
#include "model/store/history_store.h"
#include "model/store/store_schema.h"
#include "test_support.h"

namespace test_store_schema {

using namespace jfp;

namespace {

const char *kExport =
    "JobIDRaw|JobID|User|JobName|Submit|Start|End|State|ReqMem|MaxRSS\n"
    "1|1|amy|a|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:10:00|COMPLETED|1G|\n"
    "1.batch|1.batch||batch|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:10:00|COMPLETED||500M\n"
    "2|2|amy|a|2024-01-01T01:00:00|2024-01-01T01:00:10|2024-01-01T01:05:00|FAILED|1G|\n"
    "3|3|bob|b|2024-01-01T02:00:00|Unknown|Unknown|RUNNING|2G|\n";


}  // namespace

TEST_CASE("store: files that are not a store give errors that say so") {
    test::TempDir dir;
    {
        std::ofstream f(dir.file("garbage.db"));
        f << "this is not an SQLite database, just text that is long enough to have a header...........\n";
    }
    try {
        HistoryStore s(dir.file("garbage.db"), HistoryStore::Access::ReadOnly);
        FAIL("expected an error");
    } catch (const SqliteError &e) {
        CHECK(std::string(e.what()).find("garbage.db") != std::string::npos);
    }
    CHECK_THROWS_AS(HistoryStore(dir.file("missing.db"), HistoryStore::Access::ReadOnly), SqliteError);
    {
        Db db(dir.file("other.db"), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        db.exec("CREATE TABLE t(x)");
    }
    try {
        HistoryStore s(dir.file("other.db"), HistoryStore::Access::ReadOnly);
        FAIL("expected an error");
    } catch (const SqliteError &e) {
        CHECK(std::string(e.what()).find("not a jfp history store") != std::string::npos);
    }
    {
        Db db(dir.file("newer.db"), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        db.exec("PRAGMA user_version=99");
    }
    try {
        HistoryStore s(dir.file("newer.db"), HistoryStore::Access::ReadWrite);
        FAIL("expected an error");
    } catch (const SqliteError &e) {
        CHECK(std::string(e.what()).find("newer jfp") != std::string::npos);
    }
}

TEST_CASE("store: a truncated database file is refused with the path in the message") {
    test::TempDir dir;
    {
        HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
        test::ingest_text(store, kExport);
    }
    // Keep the header page but cut the rest: the file claims more pages than it has.
    REQUIRE(truncate(dir.file("h.db").c_str(), 1024) == 0);
    (void)unlink(dir.file("h.db-wal").c_str());
    bool threw = false;
    try {
        HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadOnly);
        store.for_each_job([](JobRecord &&) {});
    } catch (const SqliteError &e) {
        threw = true;
        CHECK(std::string(e.what()).find("h.db") != std::string::npos);
    }
    CHECK(threw);
}

TEST_CASE("store schema: a schema-1 store is numbered when opened for writing; read-only it tracks no changes") {
    test::TempDir dir;
    const std::string path = dir.file("old.db");
    {
        OpenedStore s = open_store_db(path, true);
        s.db.exec("INSERT INTO jobs (cluster, job_key, user, submit, end_time, outcome) VALUES ('c', '1', 'amy', 1, 2, 0)");
        s.db.exec(("INSERT INTO jobs (cluster, job_key, user, submit, outcome) VALUES ('c', '2', 'amy', 1, " +
                   std::to_string(kUnfinishedOutcome) + ")").c_str());
        // What schema 1 was: no change numbers.
        s.db.exec("DROP INDEX jobs_seq");
        for (const char *c : {"seq", "job_seq", "end_seq"})
            s.db.exec((std::string("ALTER TABLE jobs DROP COLUMN ") + c).c_str());
        s.db.exec("PRAGMA user_version=1");
    }
    CHECK_FALSE(open_store_db(path, false).tracks_changes);
    CHECK(open_store_db(path, false).has_script_fp);
    OpenedStore s = open_store_db(path, true);
    CHECK(s.tracks_changes);
    Stmt q(s.db, "SELECT job_key, seq, job_seq, end_seq IS NULL FROM jobs ORDER BY job_key");
    REQUIRE(q.step());
    CHECK(q.int_at(1) > 0);
    CHECK(q.int_at(2) == q.int_at(1));
    CHECK(q.int_at(3) == 0);  // job 1 ended
    REQUIRE(q.step());
    CHECK(q.int_at(3) == 1);  // job 2 did not
    Stmt v(s.db, "PRAGMA user_version");
    REQUIRE(v.step());
    CHECK(v.int_at(0) == kStoreSchemaVersion);
    CHECK(open_store_db(path, false).tracks_changes);
}

TEST_CASE("store schema: change numbers continue above the highest a prune removed") {
    test::TempDir dir;
    OpenedStore s = open_store_db(dir.file("h.db"), true);
    CHECK(next_change_seq(s.db) == 1);
    CHECK_FALSE(has_prunes_table(s.db));
    s.db.exec("INSERT INTO jobs (cluster, job_key, user, seq) VALUES ('c', '1', 'amy', 5)");
    CHECK(next_change_seq(s.db) == 6);
    s.db.exec("CREATE TABLE prunes (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, ended_before INTEGER NOT NULL, "
              "jobs INTEGER NOT NULL, last_seq INTEGER NOT NULL)");
    s.db.exec("INSERT INTO prunes (at, ended_before, jobs, last_seq) VALUES (0, 0, 3, 40)");
    CHECK(has_prunes_table(s.db));
    CHECK(highest_pruned_seq(s.db) == 40);
    CHECK(next_change_seq(s.db) == 41);
}

TEST_CASE("store schema: ended and not ended split every job row") {
    test::TempDir dir;
    OpenedStore s = open_store_db(dir.file("h.db"), true);
    s.db.exec(("INSERT INTO jobs (cluster, job_key, user, end_time, outcome) VALUES ('c', '1', 'a', 5, 0), "
               "('c', '2', 'a', 5, " + std::to_string(kUnfinishedOutcome) + "), ('c', '3', 'a', NULL, 0)").c_str());
    Stmt e(s.db, ("SELECT group_concat(job_key) FROM jobs WHERE " + ended_sql()).c_str());
    REQUIRE(e.step());
    CHECK(e.text_at(0) == "1");
    Stmt n(s.db, ("SELECT count(*) FROM jobs WHERE " + not_ended_sql()).c_str());
    REQUIRE(n.step());
    CHECK(n.int_at(0) == 2);
}

}  // namespace test_store_schema
