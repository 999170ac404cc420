// `jfp scripts show` (tools/scripts/script_show.h): the exact bytes kept, and the header above them.
#include <cstdio>
#include <stdexcept>

#include "catch.h"
#include "scripts_fixture.h"
#include "model/script/script_fingerprint.h"
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

TEST_CASE("scripts show --identity: the fingerprint as jfp records it, and the commands it covers", "[scripts]") {
    test::ScriptsFixture fx;
    const std::string script = "#!/bin/bash\n#SBATCH -t 10\n\"srun\" ./sim \\\n  --in data.h5   # input\n:\nexit 2;#v2\n";
    fx.archive_script(kTok, kT, script, "amy", "sim");
    fx.store_job("101", kTok, kT, Outcome::Failed, "FAILED");
    ShowRequest req;
    req.job = "101";
    req.squeue = "/nonexistent/squeue";
    req.identity = true;
    const ShownScript shown = show_script(fx.paths(), req);
    CHECK(shown.bytes == "\"srun\" ./sim --in data.h5\nexit 2\n");
    const uint64_t fp = script_fingerprint(script);
    char hex[40];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fp));
    CHECK_THAT(shown.header, HasText(std::string("# script fingerprint ") + hex + " (script_fp " +
                                     std::to_string(static_cast<int64_t>(fp)) + " in the feature log and the store)\n"));
    // The same script from a file: the same text and fingerprint, no archive needed.
    test::TempDir dir;
    test::write_file(dir.file("copy.sh"), "#!/bin/sh\n\"srun\"   ./sim --in data.h5\n\nexit 2\n");
    ShowRequest from_file;
    from_file.file = dir.file("copy.sh");
    from_file.identity = true;
    const ShownScript copy = show_script(ArchivePaths{}, from_file);
    CHECK(copy.bytes == shown.bytes);
    CHECK_THAT(copy.header, HasText(hex));
    // Past a full head, the cut is marked.
    std::string long_script;
    for (int i = 0; long_script.size() < 3000; ++i) long_script += "export OMP_PLACES_" + std::to_string(i) + "=cores\n";
    long_script += "srun ./app\n";
    CHECK_THAT(identity_text(long_script), HasText("# ... (past the first 1 KiB, only the last lines are read)\nexport"));
    CHECK_THAT(identity_text(long_script), HasText("srun ./app\n"));
    CHECK(identity_header("#!/bin/sh\n# nothing\n", true, 0) == "# script fingerprint: none (no commands: empty, binary, or comments and blank lines only)\n");
    // What the store holds, when it differs (a fingerprint an older jfp took): said.
    CHECK_THAT(identity_header("echo a\n", true, 0x1234), HasText("; the store holds 0000000000001234 (script_fp 4660) for this job"));
    from_file.file = dir.path();
    CHECK_THROWS_WITH(show_script(ArchivePaths{}, from_file), HasText("is not a file"));
    from_file.file = dir.file("missing.sh");
    CHECK_THROWS_WITH(show_script(ArchivePaths{}, from_file), HasText("cannot read "));
}

}  // namespace test_script_show
