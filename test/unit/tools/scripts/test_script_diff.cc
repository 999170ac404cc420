// `jfp scripts diff` (tools/scripts/script_diff.h): diff -u of two archived scripts, the older first.
#include "catch.h"
#include "scripts_fixture.h"
#include "tools/scripts/script_diff.h"
#include "tools/scripts/script_location.h"

namespace test_script_diff {

using namespace jfp;

namespace {
constexpr int64_t kT = 1790000000;
}

TEST_CASE("scripts diff: what changed on the way to the newer run, whichever job is named first", "[scripts]") {
    test::ScriptsFixture fx;
    fx.archive_script("1111111111111111", kT, "#!/bin/sh\n#SBATCH --mem=4G\nsrun ./a.out\n");
    fx.archive_script("2222222222222222", kT + 100, "#!/bin/sh\n#SBATCH --mem=1G\nsrun ./a.out\n");
    fx.archive_script("3333333333333333", kT + 200, "#!/bin/sh\n#SBATCH --mem=1G\nsrun ./a.out\n");
    fx.store_job("1", "1111111111111111", kT, Outcome::Completed, "COMPLETED");
    fx.store_job("2", "2222222222222222", kT + 100, Outcome::OutOfMemory, "OUT_OF_MEMORY");
    fx.store_job("3", "3333333333333333", kT + 200, Outcome::OutOfMemory, "OUT_OF_MEMORY");

    DiffRequest d;
    d.job = "2";
    d.other = "1";
    d.squeue = "/nonexistent/squeue";
    const std::string out = diff_scripts(fx.paths(), d);
    CHECK(out.rfind("--- job 1 (amy, ", 0) == 0);
    CHECK_THAT(out, HasText("\n+++ job 2 (amy, "));
    CHECK_THAT(out, HasText("\n-#SBATCH --mem=4G\n+#SBATCH --mem=1G\n"));

    d.last_ok = true;
    d.other.clear();
    d.job = "3";
    CHECK_THAT(diff_scripts(fx.paths(), d), HasText("\n-#SBATCH --mem=4G\n+#SBATCH --mem=1G\n"));

    DiffRequest same;
    same.job = "2";
    same.other = "3";
    same.squeue = "/nonexistent/squeue";
    const std::string identical = diff_scripts(fx.paths(), same);
    CHECK(identical.rfind("the scripts of job 2 (amy, ", 0) == 0);
    CHECK_THAT(identical, HasText(" are identical (sha256 "));

    same.env = true;
    CHECK_THROWS_WITH(diff_scripts(fx.paths(), same), HasText(": no environment kept"));
    d.last_ok = true;
    CHECK_THROWS_WITH(diff_scripts(fx.paths(false), d), HasText("--last-ok needs the history store"));
}

}  // namespace test_script_diff
