// A script's identity beyond its name (model/script/script_fingerprint.h), and the history it keys.
#include <random>
#include <string>
#include <vector>

#include "catch.h"
#include "model/history/history.h"
#include "model/script/script_fingerprint.h"
#include "model/script/script_traits.h"

namespace test_script_fingerprint {

using namespace jfp;

namespace {

const std::string kScript =
    "#!/bin/bash\n#SBATCH -J sim\n#SBATCH -t 60\nmodule load gcc/12\ncd \"$SLURM_SUBMIT_DIR\"\n"
    "srun ./sim --input 'a # b.nc' --steps 100\necho done\n";

}  // namespace

TEST_CASE("script fingerprint: comments, directives, blank lines and spacing do not make another script") {
    const uint64_t fp = script_fingerprint(kScript);
    REQUIRE(fp != 0);
    const std::vector<std::string> same = {
        "#!/bin/sh\n#SBATCH -J renamed\n#SBATCH -t 600 --mem=4G\nmodule load gcc/12\ncd \"$SLURM_SUBMIT_DIR\"\n"
        "srun ./sim --input 'a # b.nc' --steps 100\necho done\n",
        "# a copy\n\n\n   module   load\tgcc/12   # the compiler\ncd \"$SLURM_SUBMIT_DIR\"\r\n"
        "srun  ./sim --input 'a # b.nc'   --steps 100 \n\n  echo done\n# end\n",
        "module load gcc/12\ncd \"$SLURM_SUBMIT_DIR\"\nsrun ./sim --input 'a # b.nc' --steps 100\necho done",
    };
    for (const auto &s : same) {
        INFO(s);
        CHECK(script_fingerprint(s) == fp);
        CHECK(normalized_script(s) == normalized_script(kScript));
    }
}

TEST_CASE("script fingerprint: a command, an argument or quoted text that differs is another script") {
    const uint64_t fp = script_fingerprint(kScript);
    const std::vector<std::string> other = {
        "module load gcc/13\ncd \"$SLURM_SUBMIT_DIR\"\nsrun ./sim --input 'a # b.nc' --steps 100\necho done\n",
        "module load gcc/12\ncd \"$SLURM_SUBMIT_DIR\"\nsrun ./sim --input 'a # c.nc' --steps 100\necho done\n",
        "module load gcc/12\ncd \"$SLURM_SUBMIT_DIR\"\nsrun ./sim --input 'a  # b.nc' --steps 100\necho done\n",
        "module load gcc/12\ncd \"$SLURM_SUBMIT_DIR\"\nsrun ./sim --input 'a # b.nc' --steps 100\necho done\necho\n",
        "module load gcc/12\ncd \"$SLURM_SUBMIT_DIR\"\nsrun ./sim#x --input 'a # b.nc' --steps 100\necho done\n",
    };
    for (const auto &s : other) {
        INFO(s);
        CHECK(script_fingerprint(s) != fp);
    }
    // Nothing to identify: empty, comments and blanks only, binary.
    CHECK(script_fingerprint("") == 0);
    CHECK(script_fingerprint("#!/bin/bash\n#SBATCH -N 1\n\n   \n# nothing\n") == 0);
    CHECK(script_fingerprint(std::string("srun ./a\n\0\n", 11)) == 0);
    // Past a full head, its tail counts; what lies between does not.
    std::string long_script(kFingerprintBytes, 'x');
    CHECK(script_fingerprint(long_script + "\necho a\n") != script_fingerprint(long_script + "\necho b\n"));
    std::string middle;
    while (middle.size() < 2 * kFingerprintTailBytes) middle += "echo middle\n";
    CHECK(script_fingerprint(long_script + "\necho a\n" + middle) == script_fingerprint(long_script + "\necho b\n" + middle));
    // Comment lines do not use up the head: commands after 8 KiB of them still count.
    std::string commented;
    while (commented.size() < 8192) commented += "#SBATCH --comment=padding padding padding padding\n";
    CHECK(script_fingerprint(commented + "echo a\n") != script_fingerprint(commented + "echo b\n"));
}

// Property: random scripts of words; respacing, blank lines, comment lines and trailing comments keep the
// fingerprint; changing one word changes it. The fingerprint equals the normalised text's identity.
TEST_CASE("script fingerprint: respaced and recommented copies are the same script (property)") {
    std::mt19937_64 rng(1148);
    const char *words[] = {"srun", "./app", "-n", "4", "echo", "$HOME", "cd", "/scratch/x", "python", "run.py", "'a b'",
                           "\"c # d\"", "x=1", "&&", "|", "module", "load", "gcc/12", "\\#lit"};
    auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
    for (int round = 0; round < 500; ++round) {
        std::vector<std::vector<std::string>> lines(1 + pick(12));
        for (auto &l : lines)
            for (size_t w = 0, n = 1 + pick(6); w < n; ++w) l.push_back(words[pick(sizeof words / sizeof *words)]);
        auto render = [&](bool noisy) {
            std::string s = noisy && pick(2) ? "#!/bin/bash\n#SBATCH -J n" + std::to_string(rng()) + "\n" : "";
            for (const auto &l : lines) {
                if (noisy && pick(3) == 0) s += pick(2) ? "\n" : "   # note " + std::to_string(rng()) + "\n";
                s += noisy ? std::string(pick(3), ' ') : "";
                for (size_t i = 0; i < l.size(); ++i) s += (i ? (noisy ? std::string(1 + pick(3), pick(2) ? ' ' : '\t') : " ") : "") + l[i];
                if (noisy && pick(4) == 0) s += " # trailing";
                s += noisy && pick(5) == 0 ? "\r\n" : "\n";
            }
            return s;
        };
        const std::string plain = render(false), noisy = render(true);
        INFO("round " << round << "\n" << plain << "---\n" << noisy);
        CHECK(script_fingerprint(noisy) == script_fingerprint(plain));
        CHECK(normalized_script(noisy) == normalized_script(plain));
        // One word changed: another script.
        auto &l = lines[pick(lines.size())];
        l[pick(l.size())] += "z";
        CHECK(script_fingerprint(render(false)) != script_fingerprint(plain));
    }
}

TEST_CASE("script fingerprint: null commands and continuations read as bash reads them") {
    const std::string base = "cd /scratch/run\nsrun ./solver --in data.h5 -n 4\nexit 2\n";
    const uint64_t fp = script_fingerprint(base);
    for (const std::string &same : std::vector<std::string>{
             ":\ncd /scratch/run\ntrue\nsrun ./solver --in data.h5 -n 4\n: step two 'quoted words'\nexit 2\n",
             "cd /scratch/run\nsrun ./solver \\\n  --in data.h5 \\\n  -n 4\nexit 2\n",
             "cd /scratch/run\nsrun ./sol\\\nver --in data.h5 -n 4\nexit 2\n",
             "cd /scratch/run;\nsrun ./solver --in data.h5 -n 4 ;\nexit 2;#v2\n",
         }) {
        INFO(same);
        CHECK(normalized_script(same) == normalized_script(base));
        CHECK(script_fingerprint(same) == fp);
    }
    // Where bash runs them otherwise: another script. Quotes stay as written.
    for (const std::string &other : std::vector<std::string>{
             ": > out.log\n" + base,                    // truncates a file
             ": ${SCRATCH:=/tmp}\n" + base,             // assigns
             "true $(rm -f lock)\n" + base,             // runs rm
             "true && touch ok\n" + base,               // a second command
             base + "true\n",                           // the script's exit status is now 0
             base + ":\n# done\n",
             "\"cd\" /scratch/run\nsrun ./solver --in data.h5 -n 4\nexit 2\n",
             "cd '/scratch/run'\nsrun ./solver --in data.h5 -n 4\nexit 2\n",
             "cd /scratch/run\nsrun ./solver --in data.h5 -n 4\nexit 2\necho\n",
         }) {
        INFO(other);
        CHECK(script_fingerprint(other) != fp);
    }
    // The pairs the review found merged when quotes that looked inert were removed: each is two scripts.
    const std::vector<std::pair<std::string, std::string>> apart = {
        {"cat >x <<'EOF'\n$HOME\nEOF\n", "cat >x <<EOF\n$HOME\nEOF\n"},
        {"echo $'dir'\n", "echo $dir\n"},
        {"./app \"2\">err\n", "./app 2>err\n"},
        {"\"time\" ./app\n", "time ./app\n"},
        {"\\time ./app\n", "time ./app\n"},
        {"\"X\"=1\n", "X=1\n"},
        {"rm {\"a,b\"}\n", "rm {a,b}\n"},
        {"cd ~\"/scratch\"\n", "cd ~/scratch\n"},
    };
    for (const auto &[a, b] : apart) {
        INFO(a << " / " << b);
        CHECK(script_fingerprint(a) != script_fingerprint(b));
    }
    // A null command that is all of a body stays: without it bash refuses the script ("syntax error near
    // unexpected token 'else'"), and the fix must not read as the broken script.
    for (const auto &[body, broken] : std::vector<std::pair<std::string, std::string>>{
             {"if [ -f x ]; then\n:\nelse\nexit 1\nfi\necho ok\n", "if [ -f x ]; then\nelse\nexit 1\nfi\necho ok\n"},
             {"for f in *; do\ntrue\ndone\necho ok\n", "for f in *; do\ndone\necho ok\n"},
             {"f() {\n:\n}\nf\n", "f() {\n}\nf\n"},
             {"case $x in\na)\n:\n;;\nesac\necho ok\n", "case $x in\na)\n;;\nesac\necho ok\n"},
         }) {
        INFO(body);
        CHECK(script_fingerprint(body) != script_fingerprint(broken));
    }
    // A null command longer than the scratch line: what lies past it (a redirection) is unknown, so it stays.
    CHECK(script_fingerprint(": '" + std::string(1100, 'x') + "' > log\n" + base) != fp);
    // From a here-document on, a ':' or 'true' line may be its text: it stays.
    CHECK(script_fingerprint("cat >cfg <<EOF\nverbose:\ntrue\nEOF\n./app\n") != script_fingerprint("cat >cfg <<EOF\nverbose:\nEOF\n./app\n"));
    CHECK(script_fingerprint("python3 -c '\nimport sys\n:\n'\n./app\n") != script_fingerprint("python3 -c '\nimport sys\n'\n./app\n"));
    // Part of the command before it: "a &&" then ":" is "a && :", not "a && echo ok".
    CHECK(script_fingerprint("./a &&\n:\necho ok\n") != script_fingerprint("./a &&\necho ok\n"));
    // With other commands in the body, it goes.
    CHECK(script_fingerprint("if [ -f x ]; then\n:\necho a\nfi\necho ok\n") == script_fingerprint("if [ -f x ]; then\necho a\nfi\necho ok\n"));
    // A final ';' bash would refuse is not dropped: "then;" is not "then", a ';' alone is not nothing.
    CHECK(normalized_script("if x; then;\nfi\n") == "if x; then;\nfi\n");
    CHECK(normalized_script("./a &;\n") == "./a &;\n");
    CHECK(normalized_script(";\n") == ";\n");
    CHECK(normalized_script("echo \"\" ''\n") == "echo \"\" ''\n");
    CHECK(normalized_script("echo \\$HOME \\a\n") == "echo \\$HOME \\a\n");
    // A comment line inside a continued command ends it, as in bash; the next line is a command of its own.
    CHECK(normalized_script("srun ./a \\\n# note\n-n 4\n") == "srun ./a\n-n 4\n");
}

// Property: long scripts (a head that fills kFingerprintBytes) keep their fingerprint through the same
// rewrites as short ones, null commands and continuations included; a word changed in the head or the tail
// makes another script; two applications behind one long preamble are two scripts.
TEST_CASE("script fingerprint: head and tail of long scripts (property)") {
    std::mt19937_64 rng(2026);
    auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
    const char *words[] = {"srun", "./app", "-n", "4", "echo", "$HOME", "cd", "/scratch/x", "python", "run.py",
                           "'a b'", "module", "load", "gcc/12", "export", "OMP_NUM_THREADS=8", "--mem=4G", "&&"};
    for (int round = 0; round < 300; ++round) {
        std::vector<std::vector<std::string>> lines(100 + pick(80));
        for (auto &l : lines) {
            for (size_t w = 0, n = 1 + pick(6); w < n; ++w) l.push_back(words[pick(sizeof words / sizeof *words)]);
            // A line ending in "&&" goes on into the next, and a null command there is part of it.
            if (l.back() == "&&") l.push_back("./app");
        }
        auto render = [&](bool noisy) {
            std::string s = noisy ? "#!/bin/bash\n#SBATCH -J n" + std::to_string(rng()) + "\n" : "";
            for (const auto &l : lines) {
                if (noisy && pick(4) == 0) {
                    const char *noise[] = {"\n", "  # note\n", ":\n", "true\n", ": literal words\n", "true 'x y'\n"};
                    s += noise[pick(6)];
                }
                for (size_t i = 0; i < l.size(); ++i) {
                    std::string w = l[i];
                    // Quotes around a word they change nothing in.
                    const std::string gap = noisy && pick(6) == 0 ? " \\\n   " : (noisy ? std::string(1 + pick(2), ' ') : " ");
                    s += (i ? gap : "") + w;
                }
                s += noisy && pick(6) == 0 ? " # trailing\n" : "\n";
            }
            return s;
        };
        const std::string plain = render(false), noisy = render(true);
        INFO("round " << round << "\n" << plain << "---\n" << noisy);
        REQUIRE(normalized_script(plain).size() > kFingerprintBytes);
        CHECK(normalized_script(noisy) == normalized_script(plain));
        CHECK(script_fingerprint(noisy) == script_fingerprint(plain));
        // A word changed in the first or the last line: another script.
        auto &l = pick(2) ? lines.front() : lines.back();
        l[pick(l.size())] += "z";
        CHECK(script_fingerprint(render(false)) != script_fingerprint(plain));
    }
    // The review's cases (2026-11-30): each pair is two scripts.
    std::string pre;
    for (int i = 0; pre.size() < 2 * kFingerprintBytes; ++i) pre += "export OMP_PLACES_" + std::to_string(i) + "=cores\n";
    std::string args;
    while (args.size() < 600) args += " --opt" + std::to_string(args.size()) + " v";
    // The last command continued past the tail's room: its end is read.
    CHECK(script_fingerprint(pre + "srun ./train \\\n" + args + " --lr 0.1\n") != script_fingerprint(pre + "srun ./train \\\n" + args + " --lr 10\n"));
    // 20 KiB of comment lines after the commands do not leave the tail empty.
    std::string comments;
    while (comments.size() < 20000) comments += "# padding padding padding padding padding\n";
    CHECK(script_fingerprint(pre + "srun ./a\n" + comments) != script_fingerprint(pre + "srun ./b\n" + comments));
    // One preamble, two applications.
    std::string preamble;
    for (int i = 0; preamble.size() < 3 * kFingerprintBytes; ++i) preamble += "export OMP_PLACES_" + std::to_string(i) + "=cores\n";
    CHECK(script_fingerprint(preamble + "srun ./broken_app\n") != script_fingerprint(preamble + "srun ./working_app --fixed\n"));
}

namespace {
JobRecord run(const std::string &name, uint64_t fp, Outcome o, double elapsed, int64_t end) {
    JobRecord j;
    j.cluster = "c";
    j.job_key = std::to_string(end);
    j.user = "eve";
    j.name = name;
    j.partition = "batch";
    j.outcome = o;
    j.submit = end - 100;
    j.end = end;
    j.elapsed_s = elapsed;
    j.req_cpus = 4;
    j.script_fingerprint = fp;
    return j;
}
JobRequest submit(const std::string &name, uint64_t fp) {
    JobRequest r;
    r.user = "eve";
    r.name = name;
    r.partition = "batch";
    r.script_fingerprint = fp;
    return r;
}
}  // namespace

TEST_CASE("script fingerprint: a renamed copy of a failing script keeps the script's history") {
    const uint64_t failing = script_fingerprint(kScript), other = script_fingerprint("echo hello\n");
    HistoryIndex index;
    int64_t t = 1000;
    for (int i = 0; i < 5; ++i) index.add(run("sim", failing, Outcome::Failed, 600, t += 1000));
    // The copy under a new name: no history under the name, the script's under its fingerprint.
    HistoryView v = index.lookup(submit("totally_new", failing));
    REQUIRE(v.user_name != nullptr);
    CHECK(v.name_from_script);
    CHECK(v.user_name->streak == 5);
    // Another script under the new name is a first run.
    CHECK(index.lookup(submit("totally_new", other)).user_name == nullptr);
    // Laundered: cheap runs of another script under the new name first, or real ones: the name's runs are
    // of another script, and the failing script's own history stands in.
    for (int i = 0; i < 10; ++i) index.add(run("totally_new", other, Outcome::Completed, 1, t += 10));
    v = index.lookup(submit("totally_new", failing));
    CHECK(v.name_from_script);
    CHECK(v.user_name->streak == 5);
    for (int i = 0; i < 10; ++i) index.add(run("totally_new", other, Outcome::Completed, 3600, t += 4000));
    v = index.lookup(submit("totally_new", failing));
    CHECK(v.name_from_script);
    CHECK(v.user_name->streak == 5);
    // The other script under that name is judged on the name's history, which holds its runs.
    v = index.lookup(submit("totally_new", other));
    CHECK(v.user_name->n == 20);
    // Once the failing script completes, its history says so.
    index.add(run("sim", failing, Outcome::Completed, 3600, t += 4000));
    CHECK(index.lookup(submit("totally_new", failing)).user_name->streak == 0);
}

TEST_CASE("script fingerprint: a comment after a metacharacter, a line's final ';', comment lines before the commands") {
    const std::string base = "#!/bin/bash\ncd /scratch/run\n./solver input.h5\nexit 2\n";
    const uint64_t fp = script_fingerprint(base);
    // The same commands: '#' after ';' '|' '&' starts a comment; a final ';' ends what the newline ends.
    for (const std::string &same : std::vector<std::string>{
             "#!/bin/bash\ncd /scratch/run;#v2\n./solver input.h5\nexit 2;\n",
             "#!/bin/bash\ncd /scratch/run ;\n./solver input.h5 ; # retry\nexit 2\n",
             std::string("#!/bin/bash\n") + std::string(20000, '#') + "\ncd /scratch/run\n./solver input.h5\nexit 2\n"}) {
        INFO(same.substr(0, 80));
        CHECK(script_fingerprint(same) == fp);
    }
    // Not a command's end: ";;" (case), an escaped ';' (find -exec), one inside a quote the line leaves open.
    CHECK(normalized_script("find . -exec rm {} \\;\n") == "find . -exec rm {} \\;\n");
    CHECK(normalized_script("a) x ;;\n") == "a) x ;;\n");
    CHECK(normalized_script("echo \"a;\nb\"\n").find("a;") != std::string::npos);
    // An escaped backslash before it: the ';' ends the command.
    CHECK(normalized_script("echo \\\\;\n") == "echo \\\\\n");
    // Comment lines are passed over without spending the 16 KiB the commands may take, up to 16,384 of them.
    std::string many;
    for (int i = 0; i < 16000; ++i) many += "#\n";
    CHECK(script_fingerprint(many + "cd /scratch/run\n./solver input.h5\nexit 2\n") == fp);
}

}  // namespace test_script_fingerprint
