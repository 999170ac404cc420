// `jfp scripts find` (tools/scripts/script_find.h): archived submissions newest first, joined to the
// store's jobs, filtered, and printed as a table or JSON.
#include <nlohmann/json.hpp>

#include "catch.h"
#include "model/util/time_util.h"
#include "scripts_fixture.h"
#include "tools/scripts/script_find.h"

namespace test_script_find {

using namespace jfp;

namespace {
constexpr int64_t kT = 1790000000;

void three_jobs(test::ScriptsFixture &fx) {
    fx.archive_script("1111111111111111", kT, "one\n");
    fx.archive_script("2222222222222222", kT + 100, "two\n");
    fx.archive_script("3333333333333333", kT + 200, "three\n", "bob", "other");
    fx.store_job("1", "1111111111111111", kT, Outcome::Completed, "COMPLETED");
    fx.store_job("2", "2222222222222222", kT + 100, Outcome::OutOfMemory, "OUT_OF_MEMORY");
}
}  // namespace

TEST_CASE("scripts find: newest first, by user, time, state and limit", "[scripts]") {
    test::ScriptsFixture fx;
    three_jobs(fx);
    FindRequest q;
    q.squeue = "/nonexistent/squeue";
    auto rows = find_scripts(fx.paths(), q);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].job_id.empty());  // bob's job, not ingested and not queued
    CHECK(rows[1].job_id == "2");
    CHECK(rows[2].job_id == "1");

    q.user = "amy";
    q.limit = 1;
    rows = find_scripts(fx.paths(), q);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].job_id == "2");

    FindRequest by_state;
    by_state.squeue = "/nonexistent/squeue";
    by_state.state = "OUT_OF_MEMORY";
    rows = find_scripts(fx.paths(), by_state);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].job_id == "2");
    by_state.state = "COMPLETED";
    REQUIRE(find_scripts(fx.paths(), by_state).size() == 1);
    CHECK_THROWS_WITH(find_scripts(fx.paths(false), by_state), HasText("--state needs the history store"));

    FindRequest window;
    window.squeue = "/nonexistent/squeue";
    window.since = kT + 50;
    window.until = kT + 150;
    rows = find_scripts(fx.paths(), window);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].sub.token == "2222222222222222");
}

TEST_CASE("scripts find: the table and the JSON say the same rows", "[scripts]") {
    test::ScriptsFixture fx;
    three_jobs(fx);
    FindRequest q;
    q.squeue = fx.program("squeue", R"({"jobs": [{"job_id": 7, "admin_comment": "jfp:t=3333333333333333", "name": "q"}]})");
    auto rows = find_scripts(fx.paths(), q);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].job_id == "7");  // from the queue

    const std::string table = found_scripts_table(rows);
    CHECK(table.rfind("JOBID          SUBMITTED           USER         NAME                     STATE              BYTES  SCRIPT\n", 0) == 0);
    CHECK_THAT(table, HasText("7              " + format_sacct_time(kT + 200) + " bob          other                    queued/running         6  "));
    CHECK(found_scripts_table({}) == table.substr(0, table.find('\n') + 1));

    auto j = nlohmann::json::parse(found_scripts_json(rows));
    REQUIRE(j.size() == 3);
    CHECK(j[0]["job_id"] == "7");
    CHECK(j[0]["state"].is_null());
    CHECK(j[1]["state"] == "OUT_OF_MEMORY");
    CHECK(j[2]["script_bytes"] == 4);
    CHECK(j[2]["env_kept"] == false);
    CHECK(j[2]["user"] == "amy");
}

}  // namespace test_script_find
