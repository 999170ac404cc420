// A job's archived script found from its job id or join token (tools/scripts/script_location.h), in an
// archive and a store built here, with a stand-in squeue for jobs not ingested yet.
#include <stdexcept>

#include "catch.h"
#include "model/util/time_util.h"
#include "scripts_fixture.h"
#include "tools/scripts/script_location.h"

namespace test_script_location {

using namespace jfp;

namespace {
constexpr int64_t kT = 1790000000;
const char *kTokA = "aaaaaaaaaaaaaaaa", *kTokB = "bbbbbbbbbbbbbbbb", *kTokQ = "cccccccccccccccc";

std::string error_of(const ScriptArchive &a, const HistoryStore *s, const std::string &squeue, const std::string &job,
                     bool by_token = false) {
    try {
        locate_script(a, s, squeue, job, by_token);
    } catch (const std::exception &e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST_CASE("script location: a job id through the store's token, a token directly", "[scripts]") {
    test::ScriptsFixture fx;
    fx.archive_script(kTokA, kT, "#!/bin/sh\necho a\n");
    fx.store_job("101", kTokA, kT, Outcome::Failed, "FAILED");
    ScriptArchive archive(fx.archive, ScriptArchive::Access::ReadOnly);
    HistoryStore store(fx.db, HistoryStore::Access::ReadOnly);

    LocatedScript f = locate_script(archive, &store, "/nonexistent/squeue", "101", false);
    CHECK(f.sub.token == kTokA);
    CHECK(f.job_id == "101");
    REQUIRE(f.job);
    CHECK(state_of(f) == "FAILED");
    CHECK(archive.blob(f.sub.script_hash) == "#!/bin/sh\necho a\n");
    CHECK(describe(f) == "job 101 (amy, 'sim', submitted " + format_sacct_time(kT) + ", FAILED)");

    LocatedScript t = locate_script(archive, &store, "/nonexistent/squeue", kTokA, true);
    CHECK(t.job_id == "101");
    // Without the store, a token still finds the script; the job is then unknown.
    LocatedScript alone = locate_script(archive, nullptr, "/nonexistent/squeue", kTokA, true);
    CHECK(alone.job_id.empty());
    CHECK(state_of(alone) == "-");
    CHECK_THAT(describe(alone), HasText("job ? (amy, "));
}

TEST_CASE("script location: a queued job through squeue; each miss says why", "[scripts]") {
    test::ScriptsFixture fx;
    fx.archive_script(kTokQ, kT, "#!/bin/sh\necho queued\n");
    fx.store_job("102", kTokB, kT, Outcome::Completed, "COMPLETED");  // its script never archived
    fx.store_job("103", "", kT, Outcome::Completed, "COMPLETED");     // submitted while the plugin was off
    ScriptArchive archive(fx.archive, ScriptArchive::Access::ReadOnly);
    HistoryStore store(fx.db, HistoryStore::Access::ReadOnly);
    const std::string squeue =
        fx.program("squeue", std::string(R"({"jobs": [{"job_id": 104, "admin_comment": "jfp:t=)") + kTokQ + R"(", "name": "q"}]})");

    LocatedScript q = locate_script(archive, &store, squeue, "104", false);
    CHECK(q.sub.token == kTokQ);
    CHECK(q.job_id == "104");
    CHECK_FALSE(q.job);
    CHECK(state_of(q) == "queued/running");

    CHECK_THAT(error_of(archive, &store, squeue, "102"), HasText("job 102 (token bbbbbbbbbbbbbbbb) has no script in " + fx.archive));
    CHECK_THAT(error_of(archive, &store, squeue, "103"), HasText("job 103 carries no jfp token"));
    CHECK_THAT(error_of(archive, &store, squeue, "999"), HasText("job 999 is unknown: not in the history store " + fx.db + " and not in"));
    CHECK_THAT(error_of(archive, nullptr, "/nonexistent/squeue", "999"),
               HasText("not in the history store (none given: --db) and not in slurmctld's queue"));
    CHECK(error_of(archive, &store, squeue, "dddddddddddddddd", true) == "no script with token dddddddddddddddd in " + fx.archive);
}

TEST_CASE("script location: the user's last completed run of the same name before a failed one", "[scripts]") {
    test::ScriptsFixture fx;
    fx.archive_script("1111111111111111", kT, "ok 1\n");
    fx.archive_script("2222222222222222", kT + 100, "ok 2\n");
    fx.archive_script("3333333333333333", kT + 200, "failed\n");
    fx.archive_script("4444444444444444", kT + 50, "other name\n", "amy", "other");
    fx.store_job("1", "1111111111111111", kT, Outcome::Completed, "COMPLETED");
    fx.store_job("2", "2222222222222222", kT + 100, Outcome::Completed, "COMPLETED");
    fx.store_job("3", "3333333333333333", kT + 200, Outcome::Failed, "FAILED");
    fx.store_job("4", "4444444444444444", kT + 50, Outcome::Completed, "COMPLETED", "amy", "other");
    ScriptArchive archive(fx.archive, ScriptArchive::Access::ReadOnly);
    HistoryStore store(fx.db, HistoryStore::Access::ReadOnly);

    LocatedScript failed = locate_script(archive, &store, "/nonexistent/squeue", "3", false);
    LocatedScript ok = last_completed_run(archive, store, failed);
    CHECK(ok.job_id == "2");
    CHECK(archive.blob(ok.sub.script_hash) == "ok 2\n");

    LocatedScript first = locate_script(archive, &store, "/nonexistent/squeue", "1", false);
    try {
        last_completed_run(archive, store, first);
        FAIL("a first run has no completed run before it");
    } catch (const std::runtime_error &e) {
        CHECK_THAT(e.what(), HasText("no completed run of 'sim' by amy before job 1"));
        CHECK_THAT(e.what(), HasText("(0 completed runs with a jfp token in the store, none archived)"));
    }
}

}  // namespace test_script_location
