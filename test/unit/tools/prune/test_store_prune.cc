// `jfp prune store` (tools/prune/store_prune.h): removes exactly the jobs that ended before the age, keeps
// the ones that ended since and the ones that never ended; a dry run removes nothing.
#include <algorithm>
#include <sstream>
#include <string>

#include "catch.h"
#include "model/store/history_store.h"
#include "model/util/time_util.h"
#include "test_support.h"
#include "tools/prune/store_prune.h"

namespace test_store_prune {

using namespace jfp;

namespace {

std::string days_ago(int days) { return format_sacct_time(naive_local_now() - int64_t{days} * 86400); }

// amy's job ended 400 days ago, bob's 10 days ago; cy's was submitted 500 days ago and never ended.
std::string store_with_old_and_new_jobs(const test::TempDir &dir) {
    const std::string db = dir.file("h.db");
    HistoryStore store(db, HistoryStore::Access::ReadWrite);
    test::ingest_text(store, "JobIDRaw|JobID|User|JobName|Submit|Start|End|State\n"
                             "1|1|amy|a|" + days_ago(401) + "|" + days_ago(401) + "|" + days_ago(400) + "|FAILED\n"
                             "2|2|bob|b|" + days_ago(11) + "|" + days_ago(11) + "|" + days_ago(10) + "|COMPLETED\n"
                             "3|3|cy|c|" + days_ago(500) + "|Unknown|Unknown|RUNNING\n");
    return db;
}

PruneRequest older_than(const std::string &db, int days) {
    PruneRequest r;
    r.db = db;
    r.age = int64_t{days} * 86400;
    r.age_text = std::to_string(days) + "d";
    return r;
}

}  // namespace

TEST_CASE("prune store: removes the jobs that ended before the age and keeps the rest") {
    test::TempDir dir;
    const std::string db = store_with_old_and_new_jobs(dir);
    PruneRequest r = older_than(db, 365);
    r.dry_run = true;
    std::ostringstream dry;
    prune_store(r, dry);
    CHECK_THAT(dry.str(), HasText("jfp prune store: would remove 1 jobs that ended before "));
    CHECK_THAT(dry.str(), HasText("; 2 job rows would remain\n"));
    CHECK_THAT(dry.str(), HasText("jfp prune store: 1 users would have no job left"));
    CHECK_THAT(dry.str(), HasText("jfp prune store: kept 1 jobs submitted before then that have no end in the store (such as 3)"));
    CHECK(HistoryStore(db, HistoryStore::Access::ReadOnly).job_count() == 3);

    r.dry_run = false;
    std::ostringstream out;
    prune_store(r, out);
    CHECK_THAT(out.str(), HasText("jfp prune store: removed 1 jobs that ended before "));
    CHECK_THAT(out.str(), HasText("; 2 job rows remain\n"));
    CHECK_THAT(out.str(), HasText("the plugin loads the store whole at its next look"));
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    CHECK(store.job_count() == 2);
    CHECK(store.prune_count() == 1);
    std::vector<std::string> users;
    store.for_each_job([&](JobRecord &&j) { users.push_back(j.user); });
    std::sort(users.begin(), users.end());
    CHECK(users == std::vector<std::string>{"bob", "cy"});
}

TEST_CASE("prune store: an age under 30 days needs --force, and a missing store is an error") {
    test::TempDir dir;
    const std::string db = store_with_old_and_new_jobs(dir);
    std::ostringstream out;
    CHECK_THROWS_WITH(prune_store(older_than(db, 7), out), HasText("--older-than 7d would keep less than 30 days of history"));
    CHECK(HistoryStore(db, HistoryStore::Access::ReadOnly).job_count() == 3);
    PruneRequest forced = older_than(db, 7);
    forced.force = true;
    prune_store(forced, out);
    CHECK(HistoryStore(db, HistoryStore::Access::ReadOnly).job_count() == 1);  // only cy's, never ended
    CHECK_THROWS_WITH(prune_store(older_than(dir.file("none.db"), 365), out),
                      HasText("no history store at " + dir.file("none.db") + ": nothing to prune (check --db"));
}

}  // namespace test_store_prune
