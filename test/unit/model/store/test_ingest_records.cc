#include "catch.h"
#include "model/sacct/sacct_reader.h"
#include "model/store/history_store.h"
#include "model/store/ingest_records.h"
#include "model/store/store_schema.h"
#include "test_support.h"

namespace test_ingest_records {

using namespace jfp;

TEST_CASE("store: bad lines are kept with line numbers") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    SacctReader reader({}, [&](JobRecord &&j) { store.put_job(j); }, [&](StepInfo &&s) { store.put_step(s); });
    auto id = store.begin_ingest("t");
    reader.read_text("JobIDRaw|User|Submit|End|State\n1|amy|2024-01-01T00:00:00|2024-01-01T00:01:00|BOGUS\n", "t");
    store.finish_ingest(id, reader.report());
    auto bad = store.bad_lines(id);
    REQUIRE(bad.size() == 1);
    CHECK(bad[0].line == 2);
    CHECK(bad[0].reason.find("BOGUS") != std::string::npos);
}

TEST_CASE("ingest records: the oldest record is the store's lineage; a record rewritten is no longer its mark") {
    test::TempDir dir;
    OpenedStore s = open_store_db(dir.file("h.db"), true);
    CHECK(oldest_ingest_mark(s.db).empty());
    CHECK_FALSE(has_ingest_mark(s.db, ""));
    const int64_t first = start_ingest_record(s.db, "a.txt");
    const int64_t second = start_ingest_record(s.db, "b.txt");
    CHECK(second == first + 1);
    const std::string lineage = oldest_ingest_mark(s.db), newest = newest_ingest_mark(s.db);
    CHECK(lineage.rfind(std::to_string(first) + "|", 0) == 0);
    CHECK(lineage.substr(lineage.rfind('|')) == "|a.txt");
    CHECK(newest.substr(newest.rfind('|')) == "|b.txt");
    CHECK(has_ingest_mark(s.db, newest));
    // A store restored from a backup numbers its next ingest as the one a snapshot saw: another nonce.
    s.db.exec(("UPDATE ingests SET nonce = nonce + 1 WHERE id = " + std::to_string(second)).c_str());
    CHECK_FALSE(has_ingest_mark(s.db, newest));
    CHECK(oldest_ingest_mark(s.db) == lineage);
}

TEST_CASE("ingest records: finishing a record keeps its counts and every bad line, in line order") {
    test::TempDir dir;
    OpenedStore s = open_store_db(dir.file("h.db"), true);
    const int64_t id = start_ingest_record(s.db, "x");
    SacctReadReport r;
    r.lines = 10;
    r.job_rows = 7;
    r.bad = 2;
    BadLine late, early;
    late.line = late.last_line = 9;
    late.reason = "late";
    early.line = 3;
    early.last_line = 4;
    early.reason = "early";
    early.text = "a\nb";
    r.bad_lines = {late, early};
    finish_ingest_record(s.db, id, r);
    Stmt q(s.db, "SELECT lines, job_rows, bad FROM ingests WHERE id = ?1");
    q.bind(1, id);
    REQUIRE(q.step());
    CHECK(q.int_at(0) == 10);
    CHECK(q.int_at(1) == 7);
    CHECK(q.int_at(2) == 2);
    auto bad = ingest_bad_lines(s.db, id);
    REQUIRE(bad.size() == 2);
    CHECK(bad[0].reason == "early");
    CHECK(bad[0].last_line == 4);
    CHECK(bad[0].text == "a\nb");
    CHECK(bad[1].reason == "late");
    CHECK(ingest_bad_lines(s.db, id + 1).empty());
}

}  // namespace test_ingest_records
