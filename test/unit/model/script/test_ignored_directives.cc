// #SBATCH lines sbatch ignores: after the first command, or indented. Checked against a transliteration of
// sbatch's own loop (src/sbatch/opt.c, _opt_batch_script) on random scripts.
#include <cctype>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "catch.h"
#include "model/script/ignored_directives.h"

namespace test_ignored_directives {

using namespace jfp;
using Why = IgnoredDirective::Why;

namespace {

std::vector<uint32_t> lines_of(const DirectiveScan &s) {
    std::vector<uint32_t> out;
    for (const auto &d : s.ignored) out.push_back(d.line);
    return out;
}

// The lines sbatch reads options from, as its loop does: "#SBATCH"/"#SLURM" at the first column, until the
// first line whose first non-space character is not '#'.
std::set<uint32_t> read_by_sbatch(const std::string &script) {
    std::set<uint32_t> out;
    uint32_t lineno = 0;
    size_t pos = 0;
    while (pos < script.size()) {
        size_t nl = script.find('\n', pos);
        std::string line = script.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        pos = nl == std::string::npos ? script.size() : nl + 1;
        ++lineno;
        line = line.c_str();  // a C string
        if (line.compare(0, 7, "#SBATCH") == 0 || line.compare(0, 6, "#SLURM") == 0) {
            out.insert(lineno);
            continue;
        }
        bool is_cmd = false;
        for (char c : line) {
            if (isspace(static_cast<unsigned char>(c))) continue;
            if (c != '#') is_cmd = true;
            break;
        }
        if (is_cmd) break;
    }
    return out;
}

}  // namespace

TEST_CASE("ignored directives: after the first command, and indented ones, with their line numbers") {
    auto s = find_ignored_directives("#!/bin/bash\n#SBATCH -N 1\n\n# a comment\nmodule load gcc\n#SBATCH --mem=64G\nsrun ./a\n");
    CHECK(s.first_command_line == 5);
    REQUIRE(s.ignored.size() == 1);
    CHECK(s.ignored[0].line == 6);
    CHECK(s.ignored[0].why == Why::AfterCommand);
    CHECK(s.ignored[0].text == "#SBATCH --mem=64G");
    CHECK(s.complete);

    s = find_ignored_directives("#!/bin/bash\n  #SBATCH --time=1:00:00\n\t#SBATCH -n 4\n#SBATCH -J ok\nhostname\n");
    CHECK(lines_of(s) == std::vector<uint32_t>{2, 3});
    CHECK(s.ignored[0].why == Why::Indented);
    CHECK(s.ignored[0].text == "#SBATCH --time=1:00:00");

    // Nothing to say: all before the command, or no command at all.
    CHECK(find_ignored_directives("#!/bin/sh\n#SBATCH -n 2\n#SBATCH --mem=1G\necho hi\n").ignored.empty());
    s = find_ignored_directives("#!/bin/sh\n#SBATCH -n 2\n");
    CHECK(s.ignored.empty());
    CHECK(s.first_command_line == 0);
    CHECK(find_ignored_directives("").ignored.empty());
    CHECK(lines_of(find_ignored_directives("#!/bin/sh\necho\n#SBATCH -n 2")) == std::vector<uint32_t>{3});  // no last newline
}

TEST_CASE("ignored directives: comments that only look like directives are not reported") {
    auto s = find_ignored_directives("#!/bin/bash\necho start\n# SBATCH --mem=2G (disabled)\n#SBATCHING is fun\n"
                                     "#SLURM_JOB_ID is set by slurm\n##SBATCH --x\necho '#SBATCH --mem=1G'\n");
    CHECK(s.ignored.empty());
}

TEST_CASE("ignored directives: here-documents are the script's text, not its directives") {
    auto s = find_ignored_directives(
        "#!/bin/bash\n#SBATCH -n 1\ncat > step2.sh <<EOF\n#!/bin/bash\n#SBATCH --mem=4G\nEOF\n"
        "cat > step3.sh <<'END'\n#SBATCH -n 8\nEND\n"
        "cat <<-\"X\" > step4.sh\n\t#SBATCH -t 10\n\tX\n"
        "cat <<A <<B\n#SBATCH a\nA\n#SBATCH b\nB\n"
        "sbatch step2.sh\n#SBATCH --mem=64G\n");
    CHECK(lines_of(s) == std::vector<uint32_t>{19});
    // A here-string and a shift are not here-documents; "<<" inside quotes is not one either.
    s = find_ignored_directives("#!/bin/bash\ngrep x <<< \"$v\"\nn=$((1 << 4))\necho \"a <<EOF\"\n#SBATCH -n 2\n");
    CHECK(lines_of(s) == std::vector<uint32_t>{5});
    // A here-document never closed hides the rest: a miss, never a false report.
    s = find_ignored_directives("#!/bin/bash\ncat <<EOF\n#SBATCH -n 2\n");
    CHECK(s.ignored.empty());
    // A command continued with a backslash: its here-document starts after the whole command.
    s = find_ignored_directives("#!/bin/bash\ncat <<EOF \\\n  > out.txt\n#SBATCH -n 2\nEOF\n#SBATCH -n 3\n");
    CHECK(lines_of(s) == std::vector<uint32_t>{6});
}

TEST_CASE("ignored directives: a user sizes the script, the scan is bounded") {
    std::string big = "#!/bin/bash\necho go\n";
    for (int i = 0; i < 100; ++i) big += "#SBATCH --mem=1G\n";
    auto s = find_ignored_directives(big);
    CHECK(s.ignored.size() == 8);
    CHECK_FALSE(s.complete);
    s = find_ignored_directives(big, 8, 40);
    CHECK(s.ignored.size() == 1);
    CHECK_FALSE(s.complete);
    std::string longline = "#!/bin/bash\necho go\n#SBATCH --comment=" + std::string(10000, 'x') + "\n";
    s = find_ignored_directives(longline);
    REQUIRE(s.ignored.size() == 1);
    CHECK(s.ignored[0].text.size() == IgnoredDirective::kMaxText);
}

TEST_CASE("ignored directives: on random scripts, never a line sbatch reads, and every one it skips") {
    std::mt19937 rng(37);
    const std::vector<std::string> plain = {"#SBATCH -n 2", "#SBATCH --mem=1G", "  #SBATCH -t 5", "\t#SBATCH -J x",
                                            "#SLURM -n 1", "# SBATCH -n 3", "#!/bin/bash", "# note", "", "   ",
                                            "echo hi", "  srun ./a", "module load gcc", "x=$((1<<2))",
                                            "grep a <<< b", "echo '<<EOF'", "#SBATCH", "#SBATCHX", "\r"};
    for (int round = 0; round < 20000; ++round) {
        std::string script;
        std::set<uint32_t> body_lines;  // lines inside here-documents we generated
        uint32_t lineno = 0;
        for (int k = 0, n = static_cast<int>(rng() % 14); k < n; ++k) {
            if (rng() % 8 == 0) {  // a well-formed here-document
                const bool dash = rng() % 2;
                script += std::string("cat ") + (dash ? "<<-" : "<<") + (rng() % 2 ? "'EOT'" : "EOT") + " > f\n";
                ++lineno;
                for (int b = 0, m = static_cast<int>(rng() % 3); b < m; ++b) {
                    script += plain[rng() % 4] + "\n";
                    body_lines.insert(++lineno);
                }
                script += std::string(dash ? "\t" : "") + "EOT\n";
                ++lineno;
                continue;
            }
            script += plain[rng() % plain.size()] + "\n";
            ++lineno;
        }
        INFO(script);
        auto read = read_by_sbatch(script);
        auto s = find_ignored_directives(script, 1000);
        std::set<uint32_t> found;
        for (const auto &d : s.ignored) {
            CHECK(read.count(d.line) == 0);       // never a line sbatch reads
            CHECK(body_lines.count(d.line) == 0);  // never a here-document's text
            CHECK(d.text.rfind("#SBATCH", 0) == 0);
            found.insert(d.line);
        }
        // Every directive-shaped line sbatch skips, outside here-documents, is found.
        uint32_t l = 0;
        size_t pos = 0;
        while (pos < script.size()) {
            size_t nl = script.find('\n', pos);
            std::string line = script.substr(pos, nl - pos);
            pos = nl + 1;
            ++l;
            size_t f = line.find_first_not_of(" \t\r");
            std::string rest = f == std::string::npos ? "" : line.substr(f);
            bool shape = rest.rfind("#SBATCH", 0) == 0 && (rest.size() == 7 || rest[7] == ' ' || rest[7] == '\t');
            INFO("line " << l << ": " << line);
            if (shape && !read.count(l) && !body_lines.count(l)) CHECK(found.count(l) == 1);
        }
    }
}

}  // namespace test_ignored_directives
