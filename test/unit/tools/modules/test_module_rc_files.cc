// The rc files of a module tree (tools/modules/module_rc_files.h): aliases and symbolic versions found at
// any depth, and added to the spider's output so that the index knows them.
#include <sys/stat.h>

#include <algorithm>

#include "catch.h"
#include "model/script/module_index.h"
#include "test_support.h"
#include "tools/modules/module_rc_files.h"

namespace test_module_rc_files {

using namespace jfp;

TEST_CASE("module rc files: the names a tree's rc files make loadable, and the index that lists them", "[modules]") {
    test::TempDir dir;
    const std::string tree = dir.file("Core");
    ::mkdir(tree.c_str(), 0755);
    ::mkdir((tree + "/python").c_str(), 0755);
    test::write_file(tree + "/python/.modulerc.lua", "module_version(\"python/3.11.4\", \"3.11-latest\")\n");
    test::write_file(tree + "/.modulerc", "#%Module\nmodule-alias py python/3.11.4\n");
    test::write_file(tree + "/python/3.11.4.lua", "whatis('Python')\n");

    RcNames rc;
    read_rc_files(tree + "/", rc);
    CHECK(rc.files == 2);
    auto has = [&](const std::string &name, const std::string &file) {
        return std::find(rc.names.begin(), rc.names.end(), std::make_pair(name, file)) != rc.names.end();
    };
    CHECK(has("python/3.11-latest", tree + "/python/.modulerc.lua"));
    CHECK(has("py", tree + "/.modulerc"));
    CHECK(rc.names.size() == 2);

    const std::string spider = R"({"python": {")" + tree + R"(/python/3.11.4.lua": {"fullName": "python/3.11.4", "mpath": ")" +
                               tree + R"(", "hidden": false}}})";
    const ModuleIndex before = ModuleIndex::parse(spider);
    CHECK_FALSE(before.knows_name("py"));
    const ModuleIndex after = ModuleIndex::parse(add_rc_names(spider, before, rc));
    CHECK(after.knows_name("py"));
    CHECK(after.names() == 2);     // python, and the alias py as a module of its own
    CHECK(after.modules() == 3);   // the version kept under python
    CHECK(after.lookup("python/3.11-latest").result == ModuleLookup::Result::Found);
}

}  // namespace test_module_rc_files
