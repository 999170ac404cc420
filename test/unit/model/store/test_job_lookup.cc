#include "catch.h"
#include "model/store/history_store.h"
#include "model/store/job_lookup.h"
#include "model/store/store_schema.h"
#include "test_support.h"

namespace test_job_lookup {

using namespace jfp;

namespace {

// Two runs of one name by amy (the first tokened), one by bob, and job id 7 reused on a second cluster.
void fill(Db &db) {
    db.exec("INSERT INTO jobs (cluster, job_key, job_id, user, name, submit, jfp_token) VALUES "
            "('c', '7', '7', 'amy', 'sim', 100, 'tokA'), ('c', '8', '8', 'amy', 'sim', 200, NULL), "
            "('c', '9', '9', 'amy', 'sim', 300, 'tokC'), ('c', '10', '10', 'bob', 'sim', 150, 'tokB'), "
            "('d', '7', '7', 'cy', 'other', 400, NULL)");
}

}  // namespace

TEST_CASE("job lookup: a job id names every job that had it, newest first") {
    test::TempDir dir;
    OpenedStore s = open_store_db(dir.file("h.db"), true);
    fill(s.db);
    auto jobs = jobs_with_id(s.db, true, "7");
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[0].cluster == "d");
    CHECK(jobs[1].user == "amy");
    CHECK(jobs_with_id(s.db, true, "70").empty());
}

TEST_CASE("job lookup: a token finds its one job") {
    test::TempDir dir;
    OpenedStore s = open_store_db(dir.file("h.db"), true);
    fill(s.db);
    auto j = job_with_token(s.db, true, "tokB");
    REQUIRE(j);
    CHECK(j->user == "bob");
    CHECK(j->submit == 150);
    CHECK_FALSE(job_with_token(s.db, true, "tokZ"));
}

TEST_CASE("job lookup: a user's earlier tokened runs of a name, newest first, none at or after the time") {
    test::TempDir dir;
    OpenedStore s = open_store_db(dir.file("h.db"), true);
    fill(s.db);
    auto runs = tokened_runs(s.db, true, "amy", "sim", 1000);
    REQUIRE(runs.size() == 2);  // the untokened run is not one
    CHECK(runs[0].jfp_token == "tokC");
    CHECK(runs[1].jfp_token == "tokA");
    runs = tokened_runs(s.db, true, "amy", "sim", 300);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].jfp_token == "tokA");
    CHECK(tokened_runs(s.db, true, "bob", "other", 1000).empty());
}

TEST_CASE("job lookup: a store without fingerprints reads none") {
    test::TempDir dir;
    OpenedStore s = open_store_db(dir.file("h.db"), true);
    fill(s.db);
    s.db.exec("UPDATE jobs SET script_fp = 42");
    auto with = job_with_token(s.db, true, "tokA");
    auto without = job_with_token(s.db, false, "tokA");
    REQUIRE(with);
    REQUIRE(without);
    CHECK(with->script_fingerprint == 42);
    CHECK(without->script_fingerprint == 0);
}

}  // namespace test_job_lookup
