// `jfp scripts show` (tools/scripts/script_show.h): the exact bytes kept, and the header above them.
#include <stdexcept>

#include "catch.h"
#include "scripts_fixture.h"
#include "tools/scripts/script_show.h"

namespace test_script_show {

using namespace jfp;

namespace {
constexpr int64_t kT = 1790000000;
const char *kTok = "aaaaaaaaaaaaaaaa";
}  // namespace

TEST_CASE("scripts show: the script byte for byte, and a header naming the job and what it shows", "[scripts]") {
    test::ScriptsFixture fx;
    const std::string script = std::string("#!/bin/sh\necho hi\n#SBATCH --mem=4G\n\0bytes\xff", 41);
    const std::string env = std::string("PATH=/usr/bin\0HOME=/home/amy\0", 29);
    fx.archive_script(kTok, kT, script, "amy", "sim", &env);
    fx.store_job("101", kTok, kT, Outcome::Failed, "FAILED");
    ShowRequest req;
    req.job = "101";
    req.squeue = "/nonexistent/squeue";

    ShownScript shown = show_script(fx.paths(), req);
    CHECK(shown.bytes == script);
    CHECK_THAT(shown.header, HasText("# job 101 (amy, "));
    CHECK_THAT(shown.header, HasText(": script, 41 bytes, sha256 "));
    CHECK_THAT(shown.header, HasText(", token aaaaaaaaaaaaaaaa\n"));
    CHECK_THAT(shown.header, HasText("# finding: line 3"));
    CHECK_THAT(shown.header, HasText("# module loads not checked: no module index (modules_index in jfp.conf, or --modules-index)\n"));

    req.quiet = true;
    CHECK(show_script(fx.paths(), req).header.empty());

    req.env = true;
    CHECK(show_script(fx.paths(), req).bytes == "PATH=/usr/bin\nHOME=/home/amy\n");
    req.quiet = false;
    CHECK_THAT(show_script(fx.paths(), req).header, HasText(": environment, 29 bytes"));
}

TEST_CASE("scripts show: a submission without its environment says how to keep one", "[scripts]") {
    test::ScriptsFixture fx;
    fx.archive_script(kTok, kT, "#!/bin/sh\n");
    ShowRequest req;
    req.job = kTok;
    req.by_token = true;
    req.env = true;
    CHECK_THROWS_WITH(show_script(fx.paths(false), req),
                      HasText(": no environment kept (script_archive_env = yes in jfp.conf keeps it)"));
    CHECK(env_lines(std::string("A=1\0B=2\0", 8)) == "A=1\nB=2\n");
}

}  // namespace test_script_show
