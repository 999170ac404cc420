// The site's module index file (tools/modules/module_index_file.h), read as the plugin reads it: capped,
// and every failure naming the file.
#include <fcntl.h>
#include <unistd.h>

#include "catch.h"
#include "model/files/unique_fd.h"
#include "test_support.h"
#include "tools/modules/module_index_file.h"

namespace test_module_index_file {

using namespace jfp;

TEST_CASE("module index file: read and parsed, or an error naming the file", "[modules]") {
    test::TempDir dir;
    const std::string good = dir.file("modules.json");
    test::write_file(good, R"({"gcc": {"/apps/gcc/12.lua": {"fullName": "gcc/12", "mpath": "/apps", "hidden": false}}})");
    CHECK(read_module_index(good).knows_name("gcc"));

    test::write_file(dir.file("bad.json"), "not json");
    CHECK_THROWS_WITH(read_module_index(dir.file("bad.json")), HasText("module index " + dir.file("bad.json") + ": "));
    CHECK_THROWS_WITH(read_module_index(dir.file("absent.json")), HasText("cannot read the module index " + dir.file("absent.json") + ": "));

    std::string why;
    CHECK(optional_module_index("", "set modules_index", why) == nullptr);
    CHECK(why == "no module index (set modules_index)");
    CHECK(optional_module_index(dir.file("absent.json"), "x", why) == nullptr);
    CHECK_THAT(why, HasText("cannot read the module index"));
    CHECK(optional_module_index(good, "x", why)->knows_name("gcc"));
}

TEST_CASE("module index file: reads stop at their cap", "[modules]") {
    test::TempDir dir;
    test::write_file(dir.file("big"), std::string(3u << 20, 'x'));
    CHECK_THROWS_WITH(read_file_capped(dir.file("big"), size_t{2} << 20, "the script"),
                      "the script " + dir.file("big") + " is larger than 2 MiB");
    CHECK(read_file_capped(dir.file("big"), size_t{4} << 20, "the script").size() == (3u << 20));
    const UniqueFd fd(::open(dir.file("big").c_str(), O_RDONLY | O_CLOEXEC));
    CHECK_FALSE(read_fd_capped(fd.get(), 1000));
}

}  // namespace test_module_index_file
