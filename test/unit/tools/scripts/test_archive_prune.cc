// `jfp scripts prune` (tools/scripts/archive_prune.h): old submissions and what only they used go; the rest stays.
#include <vector>

#include "catch.h"
#include "model/util/time_util.h"
#include "scripts_fixture.h"
#include "tools/scripts/archive_prune.h"

namespace test_archive_prune {

using namespace jfp;

TEST_CASE("archive prune: counts on a dry run, removes only what is older, vacuums when asked", "[scripts]") {
    test::ScriptsFixture fx;
    const int64_t t = 1790000000;
    fx.archive_script("1111111111111111", t, "old only\n");
    fx.archive_script("2222222222222222", t + 10, "shared\n");
    fx.archive_script("3333333333333333", t + 1000, "shared\n");
    fx.archive_script("4444444444444444", t + 1000, "new\n");
    std::vector<std::string> said;
    auto say = [&](const std::string &line) { said.push_back(line); };

    ArchivePruneRequest r;
    r.archive = fx.archive;
    r.before = t + 500;
    r.dry_run = true;
    prune_archive(r, say);
    REQUIRE(said.size() == 1);
    CHECK(said[0] == "jfp scripts prune: would remove 2 submissions made before " + format_sacct_time(t + 500) +
                         " (and the scripts only they use)");
    CHECK(ScriptArchive(fx.archive, ScriptArchive::Access::ReadOnly).stats().submissions == 4);

    said.clear();
    r.dry_run = false;
    prune_archive(r, say);
    REQUIRE(said.size() == 2);
    CHECK(said[0] == "jfp scripts prune: removed 2 submissions made before " + format_sacct_time(t + 500) +
                         " and 1 stored scripts or environments nothing references any more");
    CHECK(said[1] == "jfp scripts prune: SQLite reuses the freed pages; --vacuum gives them back to the file system");
    {
        ScriptArchive a(fx.archive, ScriptArchive::Access::ReadOnly);
        CHECK(a.stats().submissions == 2);
        CHECK_FALSE(a.by_token("1111111111111111"));
        REQUIRE(a.by_token("3333333333333333"));
        CHECK(a.blob(a.by_token("3333333333333333")->script_hash) == "shared\n");
    }

    said.clear();
    r.before = t + 2000;
    r.vacuum = true;
    prune_archive(r, say);
    REQUIRE(said.size() == 2);
    CHECK_THAT(said[0], HasText("removed 2 submissions"));
    CHECK_THAT(said[1], HasText("jfp scripts prune: vacuumed; the file is now "));
}

}  // namespace test_archive_prune
