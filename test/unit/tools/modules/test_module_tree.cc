// A module tree on disk (tools/modules/module_tree.h): MODULEPATH's directories there and not empty, and
// the entries someone other than root or this user could have written.
#include <sys/stat.h>
#include <unistd.h>

#include <stdexcept>

#include "catch.h"
#include "test_support.h"
#include "tools/modules/module_tree.h"

namespace test_module_tree {

using namespace jfp;

namespace {
void file_0644(const std::string &path, const std::string &text) {
    test::write_file(path, text);
    ::chmod(path.c_str(), 0644);
}
}  // namespace

TEST_CASE("module tree: a group- or world-writable entry is untrusted, a symbolic link is not looked at", "[modules]") {
    test::TempDir dir;
    const std::string tree = dir.file("Core");
    ::mkdir(tree.c_str(), 0755);
    ::mkdir((tree + "/python").c_str(), 0755);
    file_0644(tree + "/python/3.11.4.lua", "whatis('Python')\n");
    REQUIRE(::symlink("/tmp", (tree + "/python/link").c_str()) == 0);
    CHECK(untrusted_entry(tree).empty());

    ::chmod((tree + "/python/3.11.4.lua").c_str(), 0664);
    CHECK(untrusted_entry(tree) == tree + "/python/3.11.4.lua (owner uid " + std::to_string(::geteuid()) + ", mode 0664)");
    ::chmod((tree + "/python/3.11.4.lua").c_str(), 0644);
    ::chmod((tree + "/python").c_str(), 0757);
    CHECK(untrusted_entry(tree) == tree + "/python (owner uid " + std::to_string(::geteuid()) + ", mode 0757)");
}

TEST_CASE("module tree: MODULEPATH's directories, each there and not empty", "[modules]") {
    test::TempDir dir;
    CHECK(modulepath_dirs("/a::/b:") == std::vector<std::string>{"/a", "/b"});
    CHECK(modulepath_dirs("").empty());

    const std::string full = dir.file("full"), empty = dir.file("empty");
    ::mkdir(full.c_str(), 0755);
    ::mkdir(empty.c_str(), 0755);
    file_0644(full + "/x.lua", "");
    CHECK_NOTHROW(check_modulepath_mounted(full + "::" + full));
    CHECK_THROWS_WITH(check_modulepath_mounted(full + ":" + dir.file("gone")),
                      "module directory " + dir.file("gone") + " (in --modulepath) is not a directory here (a file system "
                      "not mounted?): its modules would be missing from the index, and jobs loading them told they do not "
                      "exist; nothing written");
    CHECK_THROWS_WITH(check_modulepath_mounted(empty), HasText("module directory " + empty + " (in --modulepath) is empty"));
    CHECK_THROWS_WITH(check_modulepath_mounted(full + "/x.lua"), HasText("is not a directory here"));
}

}  // namespace test_module_tree
