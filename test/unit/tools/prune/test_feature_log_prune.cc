// `jfp prune feature-log` (tools/prune/feature_log_prune.h): removes exactly the rows of jobs scored before
// the age and keeps the rest; a feature log not made yet is nothing to prune.
#include <memory>
#include <sstream>
#include <string>

#include "catch.h"
#include "model/scoring/feature_log.h"
#include "model/util/time_util.h"
#include "test_support.h"
#include "tools/prune/feature_log_prune.h"

namespace test_feature_log_prune {

using namespace jfp;

namespace {

// Rows "old0".."old2" scored 100 days ago, "new0", "new1" a day ago.
void write_rows(const std::string &path) {
    FeatureLogWriter w(path, 64);
    auto push = [&](const std::string &token, int days) {
        FeatureLogEntry e;
        e.token = token;
        e.model_id = std::make_shared<const std::string>("m");
        e.scored_at = naive_local_now() - int64_t{days} * 86400;
        REQUIRE(w.push(std::move(e)));
    };
    for (int i = 0; i < 3; ++i) push("old" + std::to_string(i), 100);
    for (int i = 0; i < 2; ++i) push("new" + std::to_string(i), 1);
    w.flush();
    REQUIRE(w.written() == 5);
}

PruneRequest older_than(const std::string &log, int days) {
    PruneRequest r;
    r.feature_log = log;
    r.age = int64_t{days} * 86400;
    r.age_text = std::to_string(days) + "d";
    return r;
}

}  // namespace

TEST_CASE("prune feature log: removes the rows scored before the age, keeps the newer ones") {
    test::TempDir dir;
    const std::string log = dir.file("f.db");
    write_rows(log);
    PruneRequest r = older_than(log, 30);
    r.dry_run = true;
    std::ostringstream dry;
    prune_feature_log_rows(r, dry);
    CHECK_THAT(dry.str(), HasText("jfp prune feature-log: would remove 3 rows of jobs scored before "));
    CHECK_THAT(dry.str(), HasText("; 2 would remain\n"));
    CHECK(read_feature_log(log).size() == 5);

    r.dry_run = false;
    r.vacuum = true;
    std::ostringstream out;
    prune_feature_log_rows(r, out);
    CHECK_THAT(out.str(), HasText("jfp prune feature-log: removed 3 rows"));
    CHECK_THAT(out.str(), HasText("; 2 remain\njfp prune feature-log: vacuumed " + log + "\n"));
    const auto left = read_feature_log(log);
    CHECK(left.size() == 2);
    CHECK(left.count("new0") == 1);
    CHECK(left.count("new1") == 1);
    CHECK(left.count("old0") == 0);
}

TEST_CASE("prune feature log: under 30 days needs --force; no log yet is nothing to prune") {
    test::TempDir dir;
    const std::string log = dir.file("f.db");
    std::ostringstream out;
    prune_feature_log_rows(older_than(log, 30), out);
    CHECK(out.str() == "jfp prune feature-log: no feature log at " + log + " yet: nothing to prune\n");
    write_rows(log);
    CHECK_THROWS_WITH(prune_feature_log_rows(older_than(log, 10), out),
                      HasText("--older-than 10d would remove rows of jobs scored in the last 30 days"));
    CHECK(read_feature_log(log).size() == 5);
}

}  // namespace test_feature_log_prune
