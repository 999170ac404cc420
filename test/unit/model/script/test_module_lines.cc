// The modules a script loads, read as the shell meets them: what the issue's corpus plants (a typo, a
// removed version) must be found with its line; what cannot be judged from the script alone (a name from a
// variable, loads after `module use` or a sourced file, here-document bodies, `ml` subcommands and
// unloads) must not be reported as a plain load.
#include <random>

#include "catch.h"
#include "model/script/module_lines.h"

namespace test_module_lines {

using namespace jfp;

namespace {
std::vector<std::string> names(const ModuleScan &s) {
    std::vector<std::string> out;
    for (const auto &m : s.loads) out.push_back(m.name);
    return out;
}
}  // namespace

TEST_CASE("module lines: module load, add, try-load, swap and ml, with their lines") {
    ModuleScan s = find_module_loads("#!/bin/bash\n"
                                     "#SBATCH -n 4\n"
                                     "module purge\n"
                                     "module load pyhton/3.11 gcc\n"
                                     "  module -q add cmake/3.27 # build tools\n"
                                     "module try-load ddt\n"
                                     "module swap gcc intel/2023\n"
                                     "ml openmpi/4.1.5 -gcc fftw\n"
                                     "ml\n"
                                     "ml spider python\n"
                                     "ml load hdf5\n"
                                     "module load --force netcdf; srun ./a.out\n");
    CHECK(names(s) == std::vector<std::string>{"pyhton/3.11", "gcc", "cmake/3.27", "ddt", "intel/2023", "openmpi/4.1.5",
                                               "fftw", "hdf5", "netcdf"});
    REQUIRE(s.loads.size() == 9);
    CHECK(s.loads[0].line == 4);
    CHECK(s.loads[0].text == "module load pyhton/3.11 gcc");
    CHECK(s.loads[2].line == 5);
    CHECK(s.loads[3].optional);
    CHECK_FALSE(s.loads[0].optional);
    CHECK(s.loads[4].line == 7);
    CHECK(s.loads[8].line == 12);
    for (const auto &m : s.loads) CHECK(m.after_path_change == 0);
    CHECK(s.complete);
}

TEST_CASE("module lines: what the script alone cannot tell is left out or marked") {
    ModuleScan s = find_module_loads("#!/bin/bash\n"
                                     "module load $APP/1.0 \"python\" py* tool/{1,2}\n"  // 2: from variables, quotes, globs
                                     "cat > job2.sh <<EOF\n"
                                     "module load inside_heredoc\n"
                                     "EOF\n"
                                     "echo module load in_an_echo\n"
                                     "# module load commented\n"
                                     "module load first\n"                              // 8
                                     "module use /home/me/modules\n"                    // 9
                                     "module load mine/1.0\n"                           // 10
                                     "ml -foo\n");
    REQUIRE(names(s) == std::vector<std::string>{"first", "mine/1.0"});
    CHECK(s.loads[0].after_path_change == 0);
    CHECK(s.loads[1].after_path_change == 9);

    ModuleScan src = find_module_loads("source /opt/site/env.sh\nmodule load app\n");
    REQUIRE(src.loads.size() == 1);
    CHECK(src.loads[0].after_path_change == 1);
    // The module system's own init adds no tree: the loads after it are judged.
    for (const char *init : {"source /usr/share/lmod/lmod/init/bash", ". /etc/profile.d/lmod.sh", "source /etc/profile",
                             ". /usr/share/modules/init/bash", "source /etc/profile.d/z00_lmod.sh"}) {
        ModuleScan s2 = find_module_loads(std::string(init) + "\nmodule load app\n");
        REQUIRE(s2.loads.size() == 1);
        CHECK(s2.loads[0].after_path_change == 0);
    }
    // Anything after the init on its line, or an init where no package or site installs it, may add trees.
    for (const char *other : {"source ~/.bashrc", ". ./lmod/init/env.sh", "source /usr/share/lmod/lmod/init/../../../site/env.sh",
                              "source /etc/profile.d/site.sh", "source", "source /home/u/lmod/init/x",
                              "source /proj/modules/init/use.sh", "source /usr/share/lmod/lmod/init/bash; module use /home/u/mf",
                              ". /etc/profile && export MODULEPATH=/home/u/mf:$MODULEPATH"}) {
        ModuleScan s2 = find_module_loads(std::string(other) + "\nmodule load app\n");
        REQUIRE(s2.loads.size() == 1);
        CHECK(s2.loads[0].after_path_change == 1);
    }
    ModuleScan mp = find_module_loads("export MODULEPATH=/x:$MODULEPATH\nml app\n");
    REQUIRE(mp.loads.size() == 1);
    CHECK(mp.loads[0].after_path_change == 1);
    ModuleScan cont = find_module_loads("srun \\\n module load not_a_command_line\n");
    CHECK(cont.loads.empty());
}

TEST_CASE("module lines: the fast check for scripts without modules misses none at any offset") {
    for (size_t pad = 0; pad < 40; ++pad) {
        std::string filler(pad, 'x');
        CHECK(find_module_loads(filler + "\nmodule load a\n").loads.size() == 1);
        CHECK(find_module_loads(filler + "\nml b\n").loads.size() == 1);
        CHECK(find_module_loads(filler + "\nmm mo ml\n" + filler).loads.empty());
        CHECK(find_module_loads(filler + "\nsrun --mem 2 ./mode\n").loads.empty());
    }
}

TEST_CASE("module lines: bounded in bytes and names, whatever a user writes") {
    std::string big = "#!/bin/bash\n";
    for (int i = 0; i < 100; ++i) big += "module load m" + std::to_string(i) + "\n";
    ModuleScan s = find_module_loads(big, 32);
    CHECK(s.loads.size() == 32);
    CHECK_FALSE(s.complete);
    std::string huge = "#!/bin/bash\n" + std::string(20000, 'x') + "\nmodule load late\n";
    ModuleScan h = find_module_loads(huge);
    CHECK(h.loads.empty());
    CHECK_FALSE(h.complete);
    std::string long_name = "module load " + std::string(300, 'a') + " ok\n";
    CHECK(names(find_module_loads(long_name)) == std::vector<std::string>{"ok"});
    // Random bytes: no crash, every name a word of its line, every line number in range.
    std::mt19937_64 rng(3);
    const char alphabet[] = "module load ml try-add swap use \n\t#$'\"<>;&|-/._ab12EOF\\";
    for (int round = 0; round < 2000; ++round) {
        std::string text;
        for (int i = 0, n = static_cast<int>(rng() % 400); i < n; ++i) text += alphabet[rng() % (sizeof alphabet - 1)];
        ModuleScan r = find_module_loads(text);
        uint32_t lines = 1;
        for (char c : text) lines += c == '\n';
        for (const auto &m : r.loads) {
            CHECK(m.line >= 1);
            CHECK(m.line <= lines);
            CHECK_FALSE(m.name.empty());
            CHECK(m.name.front() != '-');
            CHECK(m.text.find(m.name) != std::string::npos);
        }
    }
}

// The quick test (does the text hold a command word "module" or "ml" at all?) must never skip a script
// whose lines the full scan reports: a script and the same script with a line that forces the full scan
// ("# ml x", a comment) give the same loads, over random scripts of the words and blanks that matter.
TEST_CASE("module lines: the script ends at its first NUL, as slurmctld writes it") {
    using namespace std::string_literals;
    CHECK(names(find_module_loads("#!/bin/sh\nmodule load a\0\nmodule load b\n"s)) == std::vector<std::string>{"a"});
    CHECK(names(find_module_loads("#!/bin/sh\nml a\0b\n"s)) == std::vector<std::string>{"a"});
    CHECK(find_module_loads("#!/bin/sh\necho\0\nmodule load b\n"s).loads.empty());
}

TEST_CASE("module lines: the quick test never decides what the line scan would have found") {
    std::mt19937_64 rng(37);
    const std::vector<std::string> parts = {"module", "ml", "load", "add", "use", "source", " ", "\t", "\v", "\f", "\r",
                                            "\n", ";", "&", "|", "(", "x/1", "py", "#", "m", "l", "o", "MODULEPATH=",
                                            "/usr/share/lmod/lmod/init/bash", "<<EOF", "EOF", "\\", "\nmodule load ", "\nml ", "\vmodule add ", std::string(1, '\0')};
    std::uniform_int_distribution<size_t> pick(0, parts.size() - 1), len(1, 40);
    size_t differ = 0, with_loads = 0;
    for (int round = 0; round < 200000; ++round) {
        std::string text;
        for (size_t k = len(rng); k > 0; --k) text += parts[pick(rng)];
        ModuleScan plain = find_module_loads(text), forced = find_module_loads(text + "\n# ml x\n");
        with_loads += !plain.loads.empty();
        if (names(plain) != names(forced)) {
            ++differ;
            if (differ <= 3) FAIL_CHECK("the quick test changed the result of: " << text);
        }
    }
    CHECK(differ == 0);
    CHECK(with_loads > 20000);  // the property was exercised on scripts that do load modules
}

}  // namespace test_module_lines
