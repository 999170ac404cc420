// The one pass over a script's bytes (model/script/script_mentions.h) against the obvious reading, over
// random scripts made of the byte pairs it looks for, at every offset of its vector steps and both caps;
// and the two line scans it lets skip against the same scans reading every line.
#include <random>
#include <string>

#include "catch.h"
#include "model/script/ignored_directives.h"
#include "model/script/module_lines.h"
#include "model/script/script_mentions.h"

namespace test_script_mentions {

using namespace jfp;

namespace {

bool same(const ScriptMentions &a, const ScriptMentions &b) {
    return a.module_word == b.module_word && a.module_path == b.module_path && a.last_sbatch == b.last_sbatch;
}

std::string random_script(std::mt19937_64 &rng, size_t size) {
    static const char *pieces[] = {"module", "ml", "MODULEPATH", "#SBATCH", "#S", "mo", "m", "M", "MO", "#", " ", "\n",
                                   ";", "&", "|", "(", "\t", "x", "load", "html", "run.nml", "" /* a NUL */,
                                   "echo ", "srun ./a.out\n", "MODULE"};
    std::string s;
    while (s.size() < size) {
        size_t k = rng() % (sizeof pieces / sizeof *pieces);
        if (k == 21) s.push_back('\0');
        else s += pieces[k];
    }
    s.resize(size);
    return s;
}

}  // namespace

TEST_CASE("script mentions: the vector pass finds what the obvious reading finds, at every size and cap") {
    std::mt19937_64 rng(2026);
    size_t checked = 0;
    for (int i = 0; i < 4000; ++i) {
        // Sizes around the vector steps, the module range (16 KiB) and the directive range (64 KiB).
        static const size_t around[] = {0, 1, 16, 17, 32, 33, 64, 100, kModuleScanBytes, kDirectiveScanBytes};
        size_t base = around[rng() % (sizeof around / sizeof *around)];
        size_t size = base + (rng() % 80) - std::min<size_t>(base, 40);
        std::string s = random_script(rng, size);
        ScriptMentions fast = find_script_mentions(s), slow = find_script_mentions_reference(s);
        INFO("size " << s.size());
        REQUIRE(same(fast, slow));
        // Without the module words: the same last "#SBATCH", and nothing said of modules.
        REQUIRE(same(find_script_mentions(s, false), find_script_mentions_reference(s, false)));
        REQUIRE(find_script_mentions(s, false).last_sbatch == slow.last_sbatch);
        ++checked;
    }
    CHECK(checked == 4000);
}

TEST_CASE("script mentions: each word is found at every offset, and only as a command word") {
    for (size_t at = 0; at < 100; ++at) {
        std::string pad(at, 'x');
        CHECK(find_script_mentions(pad + "\nmodule load a\n").module_word);
        CHECK(find_script_mentions(pad + ";ml a").module_word);
        CHECK_FALSE(find_script_mentions(pad + " run.nml html yaml\n").module_word);
        CHECK_FALSE(find_script_mentions(pad + " modules\n").module_word);
        CHECK(find_script_mentions(pad + "export MODULEPATH=/x").module_path);
        CHECK(find_script_mentions(pad + "#SBATCH -N 1\n").last_sbatch == at);
        CHECK(find_script_mentions(pad).last_sbatch == std::string_view::npos);
    }
    // Past its range a word is not the pass's to find: the line scans read no further either.
    std::string far(kModuleScanBytes, 'x');
    CHECK_FALSE(find_script_mentions(far + "\nmodule load a\n").module_word);
    CHECK(find_script_mentions(far + "\n#SBATCH -N 1\n").last_sbatch == kModuleScanBytes + 1);
    std::string farther(kDirectiveScanBytes, 'x');
    CHECK(find_script_mentions(farther + "\n#SBATCH -N 1\n").last_sbatch == std::string_view::npos);
}

TEST_CASE("script mentions: the line scans it lets skip find what they find reading every line") {
    std::mt19937_64 rng(7);
    static const char *lines[] = {"#!/bin/bash\n", "#SBATCH -N 1\n", "  #SBATCH -t 5\n", "module load gcc/12\n",
                                  "ml python\n", "echo hi\n", "cat <<EOF\n#SBATCH -n 2\nEOF\n", "export MODULEPATH=/x\n",
                                  "module use /y\n", "srun ./a.out; module load z\n", "# a comment\n", "\n"};
    for (int i = 0; i < 3000; ++i) {
        std::string s;
        const int n = static_cast<int>(rng() % 30);
        for (int k = 0; k < n; ++k) s += lines[rng() % (sizeof lines / sizeof *lines)];
        if (rng() % 10 == 0) s = std::string(rng() % (kDirectiveScanBytes + 100), '\n') + s;
        // The oracle: told that everything is there, the line scans read every line.
        ScriptMentions everything;
        everything.module_word = everything.module_path = true;
        everything.last_sbatch = s.size();
        const ScriptMentions said = find_script_mentions(s);
        DirectiveScan a = find_ignored_directives(s, everything), b = find_ignored_directives(s, said);
        REQUIRE(a.ignored.size() == b.ignored.size());
        for (size_t k = 0; k < a.ignored.size(); ++k) REQUIRE(a.ignored[k].line == b.ignored[k].line);
        REQUIRE(a.first_command_line == b.first_command_line);
        REQUIRE(a.complete == b.complete);
        ModuleScan ma = find_module_loads(s, everything), mb = find_module_loads(s, said);
        REQUIRE(ma.loads.size() == mb.loads.size());
        for (size_t k = 0; k < ma.loads.size(); ++k) REQUIRE(ma.loads[k].name == mb.loads[k].name);
        REQUIRE(ma.complete == mb.complete);
    }
}

}  // namespace test_script_mentions
