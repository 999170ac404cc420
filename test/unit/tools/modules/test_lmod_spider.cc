// Lmod's spider (tools/modules/lmod_spider.h): found, run, or its output read from a file only its
// owner could have written.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "catch.h"
#include "test_support.h"
#include "tools/modules/lmod_spider.h"
#include "tools/process/subprocess.h"

namespace test_lmod_spider {

using namespace jfp;

namespace {
std::string error_of(const std::string &path) {
    try {
        spider_output_file(path);
    } catch (const std::exception &e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST_CASE("lmod spider: the one named, else $LMOD_DIR's; run with its arguments", "[modules]") {
    test::TempDir dir;
    CHECK(find_spider("/opt/lmod/spider") == "/opt/lmod/spider");
    const std::string spider = dir.file("spider");
    test::write_file(spider, "#!/bin/sh\necho \"{\\\"args\\\": \\\"$1 $2 $3\\\"}\"\n");
    ::chmod(spider.c_str(), 0755);
    const char *old = std::getenv("LMOD_DIR");
    const std::string kept = old ? old : "";
    ::setenv("LMOD_DIR", dir.path().c_str(), 1);
    const std::string found = find_spider("");
    if (old) ::setenv("LMOD_DIR", kept.c_str(), 1);
    else ::unsetenv("LMOD_DIR");
    CHECK(found == spider);

    CHECK(run_spider(spider, "/apps/core:/apps/extra") == "{\"args\": \"-o spider-json /apps/core:/apps/extra\"}\n");
    CHECK_THROWS_WITH(run_spider("/bin/false", "/apps"), HasText("/bin/false exited with status 1; nothing written"));
}

TEST_CASE("lmod spider: its output from a file others could not have written", "[modules]") {
    test::TempDir dir;
    const std::string out = dir.file("out.json");
    test::write_file(out, "{\"python\": {}}");
    ::chmod(out.c_str(), 0644);
    CHECK(spider_output_file(out) == "{\"python\": {}}");

    REQUIRE(::symlink(out.c_str(), dir.file("link.json").c_str()) == 0);
    CHECK(error_of(dir.file("link.json")) == dir.file("link.json") + " (--from) is a symbolic link; nothing written (let root's "
                                                 "shell write the spider's output into a directory root owns: admin guide, \"Module checks\")");
    ::chmod(out.c_str(), 0664);
    CHECK_THAT(error_of(out), HasText(out + " (--from) has mode 0664: users other than its owner could have written it"));
    ::chmod(out.c_str(), 0644);
    ::chmod(dir.path().c_str(), 0770);
    CHECK_THAT(error_of(out), HasText(out + " (--from) is in " + dir.path() + ", mode 0770, where users other than its owner can create files"));
    ::chmod(dir.path().c_str(), 0700);
    CHECK_THAT(error_of(dir.file("absent.json")), HasText("cannot read " + dir.file("absent.json") + " (--from): "));
    ::mkdir(dir.file("sub").c_str(), 0755);
    CHECK_THAT(error_of(dir.file("sub")), HasText("is not a regular file"));
}

}  // namespace test_lmod_spider
