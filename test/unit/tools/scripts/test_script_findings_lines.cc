// The "# finding:" lines above a shown script (tools/scripts/script_findings_lines.h).
#include "catch.h"
#include "test_support.h"
#include "tools/scripts/script_findings_lines.h"

namespace test_script_findings_lines {

using namespace jfp;

namespace {
const char *kIndex = R"({"python": {"/apps/core/python/3.11.4.lua": {"fullName": "python/3.11.4", "mpath": "/apps/core", "hidden": false}}})";
}

TEST_CASE("script findings lines: ignored #SBATCH lines, modules the index lacks, or why modules were not checked", "[scripts]") {
    test::TempDir dir;
    const std::string index = dir.file("modules.json");
    test::write_file(index, kIndex);

    const std::string late = "#!/bin/bash\nmodule load pyhton\nsrun ./a.out\n#SBATCH --mem=64G\n";
    std::string lines = script_findings_lines(late, std::nullopt, index);
    CHECK_THAT(lines, HasText("# finding: line 4: '#SBATCH --mem=64G' comes after the script's first command"));
    CHECK_THAT(lines, HasText("# finding: line 2: 'module load pyhton': this cluster has no module 'pyhton'; did you mean python?"));
    CHECK_THAT(lines, !HasText("not checked"));

    CHECK(script_findings_lines("#!/bin/bash\n#SBATCH -n 1\nmodule load python\n", std::nullopt, index) ==
          "# findings: none (no #SBATCH line sbatch ignored, no module the index lacks)\n");
    CHECK(script_findings_lines("#!/bin/bash\n#SBATCH -n 1\n", std::nullopt, "") ==
          "# findings: none (no #SBATCH line sbatch ignored)\n"
          "# module loads not checked: no module index (modules_index in jfp.conf, or --modules-index)\n");
    CHECK_THAT(script_findings_lines("#!/bin/bash\n", std::nullopt, dir.file("absent.json")),
               HasText("# module loads not checked: cannot read the module index " + dir.file("absent.json")));
}

}  // namespace test_script_findings_lines
