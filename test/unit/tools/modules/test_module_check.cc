// `jfp modules check` (tools/modules/module_check.h): scripts' module loads against an index file.
#include <vector>

#include "catch.h"
#include "test_support.h"
#include "tools/modules/module_check.h"

namespace test_module_check {

using namespace jfp;

namespace {
const char *kIndex = R"({"python": {"/apps/core/python/3.11.4.lua": {"fullName": "python/3.11.4", "mpath": "/apps/core", "hidden": false}}})";
}

TEST_CASE("module check: a module the index lacks is said as the plugin says it; the rest counted", "[modules]") {
    test::TempDir dir;
    test::write_file(dir.file("modules.json"), kIndex);
    test::write_file(dir.file("bad.sh"), "#!/bin/bash\nmodule load pyhton/3.11\nmodule try-load nothere\n");
    test::write_file(dir.file("good.sh"), "#!/bin/bash\nmodule load python\nmodule load python/3.11\n");

    std::vector<ScriptModuleReport> seen;
    const size_t with_findings = check_scripts_modules(dir.file("modules.json"), {dir.file("bad.sh"), dir.file("good.sh")},
                                                       [&](const ScriptModuleReport &r) { seen.push_back(r); });
    CHECK(with_findings == 1);
    REQUIRE(seen.size() == 2);
    REQUIRE(seen[0].missing.size() == 1);
    CHECK_THAT(seen[0].missing[0], HasText("line 2: 'module load pyhton/3.11': this cluster has no module 'pyhton'; did you mean python?"));
    CHECK(seen[0].not_told.size() == 1);  // the try-load
    CHECK(seen[1].missing.empty());
    CHECK(seen[1].loads == 2);

    CHECK(module_report_text(seen[1], false) == dir.file("good.sh") + ": 2 module loads, none missing\n");
    CHECK(module_report_text(seen[1], true).empty());
    const std::string bad = module_report_text(seen[0], false);
    CHECK(bad.rfind(dir.file("bad.sh") + ": line 2: 'module load pyhton/3.11'", 0) == 0);
    CHECK_THAT(bad, HasText("\n" + dir.file("bad.sh") + ": not judged: "));
    CHECK(module_report_text(seen[0], true) == bad.substr(0, bad.find('\n') + 1));
}

TEST_CASE("module check: an unreadable script stops the run after the ones before it", "[modules]") {
    test::TempDir dir;
    test::write_file(dir.file("modules.json"), kIndex);
    test::write_file(dir.file("good.sh"), "module load python\n");
    size_t reported = 0;
    CHECK_THROWS_WITH(check_scripts_modules(dir.file("modules.json"), {dir.file("good.sh"), dir.file("absent.sh")},
                                            [&](const ScriptModuleReport &) { ++reported; }),
                      HasText("cannot read the script " + dir.file("absent.sh")));
    CHECK(reported == 1);
    CHECK_THROWS_WITH(check_scripts_modules(dir.file("absent.json"), {dir.file("good.sh")}, [](const ScriptModuleReport &) {}),
                      HasText("cannot read the module index " + dir.file("absent.json")));
}

}  // namespace test_module_check
