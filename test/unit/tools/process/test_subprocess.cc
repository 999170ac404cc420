// The one way the CLI runs a program (tools/process/subprocess.h): argv reaches it as written, and every
// failure is one error in one style.
#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "catch.h"
#include "test_support.h"
#include "tools/process/subprocess.h"

namespace test_subprocess {

using namespace jfp;

namespace {

std::string error_of(const std::vector<std::string> &argv, const SubprocessOptions &opt = {}) {
    try {
        run_program(argv, opt);
    } catch (const SubprocessError &e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("a program's output is read whole and its status accepted", "[subprocess]") {
    auto r = run_program({"printf", "%s\\n", "one", "two"});
    CHECK(r.out == "one\ntwo\n");
    CHECK(r.exit_status == 0);
}

TEST_CASE("arguments pass literally: no shell sees them", "[subprocess]") {
    const std::vector<std::string> odd = {"a b", "'quoted'", "\"double\"", "x; touch /tmp/jfp-unit-pwned", "$(id)", "`id`", "*", ""};
    std::vector<std::string> argv = {"printf", "[%s]\\n"};
    argv.insert(argv.end(), odd.begin(), odd.end());
    auto r = run_program(argv);
    std::string want;
    for (const auto &a : odd) want += "[" + a + "]\n";
    CHECK(r.out == want);
    CHECK(::access("/tmp/jfp-unit-pwned", F_OK) != 0);
}

TEST_CASE("an exit status names the program, the status, its first stderr line and what to do", "[subprocess]") {
    SubprocessOptions opt;
    opt.hint = "check the thing";
    std::string e = error_of({"sh", "-c", "echo; echo 'first line' >&2; echo second >&2; exit 3"}, opt);
    CHECK(e == "sh exited with status 3: first line; check the thing");
    CHECK(error_of({"false"}) == "false exited with status 1");
    opt.name = "the tool";
    opt.hint.clear();
    CHECK(error_of({"false"}, opt) == "the tool exited with status 1");
}

TEST_CASE("statuses the caller accepts are not failures", "[subprocess]") {
    SubprocessOptions opt;
    opt.ok_status = {0, 1};
    CHECK(run_program({"sh", "-c", "echo x; exit 1"}, opt).exit_status == 1);
    CHECK(error_of({"sh", "-c", "exit 2"}, opt) == "sh exited with status 2");
}

TEST_CASE("a program killed by a signal says which", "[subprocess]") {
    std::string e = error_of({"sh", "-c", "echo dying >&2; kill -TERM $$"});
    CHECK(e.rfind("sh was killed by signal 15 (", 0) == 0);
    CHECK(e.find("): dying") != std::string::npos);
}

TEST_CASE("a program that is not there cannot run", "[subprocess]") {
    SubprocessOptions opt;
    opt.hint = "install it";
    CHECK(error_of({"jfp-no-such-program-anywhere"}, opt) == "cannot run jfp-no-such-program-anywhere: No such file or directory; install it");
    CHECK(error_of({"/nonexistent/dir/prog"}) == "cannot run /nonexistent/dir/prog: No such file or directory");
    CHECK_THROWS_AS(run_program({}), SubprocessError);
}

TEST_CASE("output past the cap is an error, not a cut", "[subprocess]") {
    SubprocessOptions opt;
    opt.max_stdout = 1000;
    opt.hint = "nothing written";
    CHECK(run_program({"head", "-c", "1000", "/dev/zero"}, opt).out.size() == 1000);
    // yes never ends by itself: past the cap it is stopped.
    CHECK(error_of({"yes"}, opt) == "yes wrote more than 1000 bytes, more than jfp reads of it; nothing written");
}

TEST_CASE("stderr is capped and drained while stdout is read", "[subprocess]") {
    SubprocessOptions opt;
    opt.max_stderr = 10;
    // 1 MiB to stderr (more than a pipe holds) before anything on stdout: it must not hang.
    std::string e = error_of({"sh", "-c", "head -c 1048576 /dev/zero | tr '\\0' e >&2; echo out; exit 4"}, opt);
    CHECK(e == "sh exited with status 4: eeeeeeeeee");
}

TEST_CASE("a streamed program's output is read as it comes, and a program given stdin reads it", "[subprocess]") {
    test::TempDir dir;
    test::write_file(dir.file("in.txt"), "hello\nworld\n");
    int fd = ::open(dir.file("in.txt").c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    SubprocessOptions opt;
    opt.stdin_fd = fd;
    std::string lines;
    read_program_output({"cat"}, opt, [&](std::FILE *out) {
        char buf[64];
        while (std::fgets(buf, sizeof buf, out)) lines += buf;
    });
    ::close(fd);
    CHECK(lines == "hello\nworld\n");
    // Without stdin_fd the program reads /dev/null, never the test's own input.
    CHECK(run_program({"cat"}).out.empty());
}

TEST_CASE("the program's failure is the error even when its reader failed first", "[subprocess]") {
    try {
        read_program_output({"sh", "-c", "echo partial; echo 'sacct: error: no slurmdbd' >&2; exit 1"}, {},
                            [](std::FILE *) { throw std::runtime_error("unexpected end of JSON"); });
        FAIL("no error");
    } catch (const SubprocessError &e) {
        CHECK(std::string(e.what()) == "sh exited with status 1: sacct: error: no slurmdbd");
    }
    // A program that succeeded leaves the reader's error.
    CHECK_THROWS_WITH(read_program_output({"true"}, {}, [](std::FILE *) { throw std::runtime_error("bad format"); }),
                      "bad format");
}

TEST_CASE("a reader dropped before finish stops its program", "[subprocess]") {
    pid_t before = getpid();
    {
        ProgramReader r({"yes"});
        char buf[16];
        REQUIRE(std::fread(buf, 1, sizeof buf, r.out()) == sizeof buf);
    }  // killed and reaped here, or the test would hang or leave a zombie
    CHECK(getpid() == before);
}

TEST_CASE("a program is waited for once", "[subprocess]") {
    ProgramReader r({"true"});
    CHECK(r.finish().exit_status == 0);
    CHECK_THROWS_AS(r.finish(), SubprocessError);
}

}  // namespace test_subprocess
