// `jfp prune orphans` (tools/prune/orphan_prune.h): removes the feature-log rows no job in the store
// carries the token of, only within the store's span less the grace; every other row stays.
#include <memory>
#include <sstream>
#include <string>

#include "catch.h"
#include "model/files/sqlite_util.h"
#include "model/scoring/feature_log.h"
#include "model/util/time_util.h"
#include "test_support.h"
#include "tools/prune/orphan_prune.h"

namespace test_orphan_prune {

using namespace jfp;

namespace {

int64_t days_ago(int days) { return naive_local_now() - int64_t{days} * 86400; }

// Jobs with tokens "a" (submitted 40 days ago), "b" (20) and "c" (1).
std::string store_with_tokens(const test::TempDir &dir) {
    const std::string db = dir.file("h.db");
    {
        HistoryStore store(db, HistoryStore::Access::ReadWrite);
        std::string text = "JobIDRaw|JobID|User|JobName|Submit|Start|End|State\n";
        int id = 1;
        for (int days : {40, 20, 1}) {
            const std::string t = format_sacct_time(days_ago(days));
            text += std::to_string(id) + "|" + std::to_string(id) + "|amy|a|" + t + "|" + t + "|" + t + "|COMPLETED\n";
            ++id;
        }
        test::ingest_text(store, text);
    }
    Db w(db, SQLITE_OPEN_READWRITE);
    w.exec("UPDATE jobs SET jfp_token = char(96 + CAST(job_id AS INTEGER))");  // 1 -> a, 2 -> b, 3 -> c
    return db;
}

// Rows of the jobs' tokens, and of "x" (30 days ago) and "y" (3 days ago) that no job carries.
void write_rows(const std::string &path) {
    FeatureLogWriter w(path, 64);
    for (const auto &[token, days] : std::vector<std::pair<std::string, int>>{{"a", 40}, {"x", 30}, {"b", 20}, {"y", 3}, {"c", 1}}) {
        FeatureLogEntry e;
        e.token = token;
        e.model_id = std::make_shared<const std::string>("m");
        e.scored_at = days_ago(days);
        REQUIRE(w.push(std::move(e)));
    }
    w.flush();
    REQUIRE(w.written() == 5);
}

}  // namespace

TEST_CASE("prune orphans: removes the rows no job carries, scored from the first job to the last less the grace") {
    test::TempDir dir;
    const std::string db = store_with_tokens(dir);
    {
        Db check(db, SQLITE_OPEN_READONLY);
        Stmt s(check, "SELECT group_concat(jfp_token, '') FROM (SELECT jfp_token FROM jobs ORDER BY submit)");
        REQUIRE(s.step());
        REQUIRE(s.text_at(0) == "abc");
    }
    PruneRequest r;
    r.db = db;
    r.feature_log = dir.file("f.db");
    r.archive = dir.file("no-archive.db");  // absent: not pruned
    r.age = 7 * 86400;
    r.age_text = "7d";
    write_rows(r.feature_log);
    r.dry_run = true;
    std::ostringstream dry;
    prune_orphans(r, dry);
    CHECK_THAT(dry.str(), HasText("jfp prune orphans: feature log: would remove 1 rows scored "));
    CHECK_THAT(dry.str(), HasText("that no job in the store carries; 5 rows remain\n"));
    CHECK(read_feature_log(r.feature_log).size() == 5);

    r.dry_run = false;
    std::ostringstream out;
    prune_orphans(r, out);
    CHECK_THAT(out.str(), HasText("jfp prune orphans: feature log: removed 1 rows scored "));
    CHECK(out.str().find("script archive") == std::string::npos);
    const auto left = read_feature_log(r.feature_log);
    CHECK(left.size() == 4);
    CHECK(left.count("x") == 0);  // in the window, no job: an orphan
    CHECK(left.count("y") == 1);  // past the window: its job may still be queued
    for (const char *t : {"a", "b", "c"}) CHECK(left.count(t) == 1);
}

TEST_CASE("prune orphans: a store with no token says so and removes nothing; a short grace needs --force") {
    test::TempDir dir;
    const std::string db = dir.file("h.db");
    {
        HistoryStore store(db, HistoryStore::Access::ReadWrite);
        test::ingest_text(store, "JobIDRaw|JobID|User|JobName|Submit|Start|End|State\n"
                                 "1|1|amy|a|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:10:00|COMPLETED\n");
    }
    PruneRequest r;
    r.db = db;
    r.feature_log = dir.file("f.db");
    r.age = 30 * 86400;
    r.age_text = "30d";
    write_rows(r.feature_log);
    std::ostringstream out;
    prune_orphans(r, out);
    CHECK_THAT(out.str(), HasText("jfp prune orphans: " + db + " holds no job with a jfp token yet"));
    CHECK(read_feature_log(r.feature_log).size() == 5);
    r.age = 86400;
    r.age_text = "1d";
    CHECK_THROWS_WITH(prune_orphans(r, out), HasText("--grace 1d is under 7 days"));
}

}  // namespace test_orphan_prune
