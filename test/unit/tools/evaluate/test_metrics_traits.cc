#include <cmath>
#include <fstream>
#include <random>
#include <string>

#include "catch.h"
#include "model/script/script_traits.h"
#include "model/scoring/features.h"
#include "tools/evaluate/metrics.h"
#include "tools/evaluate/verdict.h"
#include "tools/simulate/synth.h"
#include "test_support.h"

namespace test_metrics_traits {

using namespace jfp;

TEST_CASE("metrics: ROC-AUC and average precision on hand-checked cases") {
    // Perfect ranking.
    auto m = evaluate_binary({0.9f, 0.8f, 0.2f, 0.1f}, {1, 1, 0, 0}, 0.5);
    CHECK(m.roc_auc == Approx(1.0));
    CHECK(m.pr_auc == Approx(1.0));
    CHECK(m.precision == 1.0);
    CHECK(m.recall == 1.0);
    // Scores 0.9(+) 0.8(-) 0.7(+) 0.1(-): ROC 3/4, AP = (1/1 + 2/3) / 2.
    m = evaluate_binary({0.9f, 0.8f, 0.7f, 0.1f}, {1, 0, 1, 0}, 0.75);
    CHECK(m.roc_auc == Approx(0.75));
    CHECK(m.pr_auc == Approx((1.0 + 2.0 / 3.0) / 2.0));
    CHECK(m.tp == 1);
    CHECK(m.fp == 1);
    CHECK(m.precision == Approx(0.5));
    CHECK(m.recall == Approx(0.5));
    // All tied: no ranking information.
    m = evaluate_binary({0.5f, 0.5f, 0.5f, 0.5f}, {1, 0, 1, 0}, 0.9);
    CHECK(m.roc_auc == Approx(0.5));
    CHECK(m.pr_auc == Approx(0.5));
    CHECK(m.flagged() == 0);
    CHECK(m.recall_at_p90 == 0);  // precision is 0.5 at the only threshold
    // Recall at precision 0.9: 0.9(+) 0.8(+) 0.7(-) 0.6(+) 0.5(-): the top two are 2/2 precise, 2 of 3 failures.
    m = evaluate_binary({0.9f, 0.8f, 0.7f, 0.6f, 0.5f}, {1, 1, 0, 1, 0}, 0.5);
    CHECK(m.recall_at_p90 == Approx(2.0 / 3.0));
    // Ties count as one threshold: 0.9(+) 0.9(-) can never be 90% precise.
    m = evaluate_binary({0.9f, 0.9f, 0.1f}, {1, 0, 1}, 0.5);
    CHECK(m.recall_at_p90 == 0);
}

TEST_CASE("metrics: core-hours caught and blocked at a threshold") {
    // failed 10h flagged, failed 5h not, good 2h flagged, good with unknown hours flagged, good 7h not.
    auto c = cost_at({0.9f, 0.2f, 0.8f, 0.7f, 0.1f}, {1, 1, 0, 0, 0}, {10, 5, 2, std::nan(""), 7}, 0.5);
    CHECK(c.failed_caught == 1);
    CHECK(c.failed_caught_core_hours == 10);
    CHECK(c.failed_core_hours == 15);
    CHECK(c.good_flagged == 2);
    CHECK(c.good_flagged_core_hours == 2);
}

TEST_CASE("metrics: population stability index") {
    std::vector<float> train, same, shifted, unknown;
    for (int i = 0; i < 1000; ++i) {
        train.push_back(static_cast<float>(i % 100));
        same.push_back(static_cast<float>((i * 7) % 100));
        shifted.push_back(static_cast<float>(50 + i % 100));
        unknown.push_back(std::nanf(""));
    }
    CHECK(population_stability_index(train, same) < 0.01);
    CHECK(population_stability_index(train, shifted) > 0.25);
    CHECK(population_stability_index(train, unknown) > 0.25);  // a feature that went missing live
    CHECK(population_stability_index(unknown, unknown) < 1e-9);
    CHECK(population_stability_index({}, same) == 0);
}

TEST_CASE("metrics: the threshold is the lowest whose precision's lower confidence bound reaches the target") {
    // 1,000 jobs by score: the top 200 failed, then 20 of the next 40 alternate, the rest completed.
    std::vector<float> s;
    std::vector<int> l;
    for (int i = 0; i < 1000; ++i) {
        s.push_back(static_cast<float>(1000 - i) / 1000.0f);
        l.push_back(i < 200 || (i >= 200 && i < 240 && i % 2 == 0));
    }
    auto t = choose_threshold(s, l, 0.9, 5);
    REQUIRE(t.target_reached);
    CHECK(t.precision_lower >= 0.9);
    CHECK(t.precision_lower < t.precision);
    // The point estimate alone would go lower: one more job past the chosen threshold still has precision
    // >= 0.9, but its bound does not.
    size_t flagged = 0;
    for (float x : s) flagged += x >= t.threshold;
    size_t tp = 0;
    for (size_t i = 0; i < flagged + 1; ++i) tp += l[i];
    CHECK(static_cast<double>(tp) / static_cast<double>(flagged + 1) >= 0.9);
    CHECK(wilson_lower(static_cast<double>(tp), static_cast<double>(flagged + 1)) < 0.9);
    // 20 of 22 (0.909) is not enough evidence for 0.9: the bound is 0.76.
    CHECK(wilson_lower(20, 22) == Approx(0.759).margin(0.001));
    CHECK(wilson_lower(0, 0) == 0);
    CHECK(wilson_lower(950, 1000) == Approx(0.9372).margin(0.001));
}

TEST_CASE("script traits: interpreter, directives, modules, launchers, python, conda, set -e") {
    auto t = scan_script("#!/bin/bash\n#SBATCH -N 2\n#SBATCH -t 01:00:00\nset -euo pipefail\nmodule load gcc/12\n"
                         "module add openmpi\nml python\nsource activate myenv\nsrun ./a.out\nmpirun -np 4 ./b\n"
                         "python3 post.py\n# srun in a comment does not count\n");
    CHECK(t.interp_shell == 1);
    CHECK(t.interp_python == 0);
    CHECK(t.sbatch_directives == 2);
    CHECK(t.module_loads == 3);
    CHECK(t.srun == 1);
    CHECK(t.mpirun == 1);
    CHECK(t.uses_python == 1);
    CHECK(t.uses_conda == 1);
    CHECK(t.set_e == 1);
    CHECK(t.lines == 12);
    auto py = scan_script("#!/usr/bin/env python3\nimport os\nos.system('srun x')\n");
    CHECK(py.interp_python == 1);
    CHECK(py.srun == 0);
    auto bin = scan_script(std::string("\x7f" "ELF\0\0binary", 12));
    CHECK(bin.binary == 1);
    std::string big(4 << 20, 'x');
    auto b = scan_script(big);
    CHECK(b.bytes == 4 << 20);
    CHECK(b.lines == 1);  // only the scanned prefix counts lines
    CHECK(scan_script("#!/bin/sh\nset -o errexit\n").set_e == 1);
    CHECK(scan_script("#!/bin/sh\nset -x\n").set_e == 0);
}

TEST_CASE("script traits: the fast scanner equals the reference on random scripts") {
    // Fragments chosen to hit every keyword, word boundaries, comments, blank lines, CRLF, keywords split
    // across lines and near the end of the scanned prefix.
    static const char *frags[] = {"srun", "srunx", "_srun", " srun ", "mpirun", "mpiexec", "xmpirun", "python", "ipython3",
                                  "conda", "miniconda", "mamba", "activate", "venv", "module load x", "module  add y",
                                  "ml gcc", "set -e", "set -o errexit", "set -x", "#SBATCH -N 1", "# srun", "#!/bin/bash",
                                  "#!/usr/bin/env python3", "\n", "\n", "\n", "\r\n", "   ", "\t", "x", "sru", "n", "a.e",
                                  "s..n", "v..v", "m...a", "p....n", "m.....c", "a......e", "echo $HOME", ";", "|", "'"};
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<size_t> pick(0, sizeof frags / sizeof *frags - 1);
    for (int round = 0; round < 3000; ++round) {
        std::string s;
        size_t target = round % 10 == 0 ? kScriptScanBytes + 64 : (rng() % 400);
        while (s.size() < target) {
            s += frags[pick(rng)];
        }
        ScriptTraits a = scan_script(s), b = scan_script_reference(s);
        INFO("script: " << s.substr(0, 300));
        CHECK(a.bytes == b.bytes);
        CHECK(a.lines == b.lines);
        CHECK(a.interp_python == b.interp_python);
        CHECK(a.interp_shell == b.interp_shell);
        CHECK(a.sbatch_directives == b.sbatch_directives);
        CHECK(a.module_loads == b.module_loads);
        CHECK(a.srun == b.srun);
        CHECK(a.mpirun == b.mpirun);
        CHECK(a.uses_python == b.uses_python);
        CHECK(a.uses_conda == b.uses_conda);
        CHECK(a.set_e == b.set_e);
        CHECK(a.binary == b.binary);
    }
}

TEST_CASE("features: names are unique and index back") {
    const auto &n = feature_names();
    for (int i = 0; i < kNumFeatures; ++i) {
        CHECK(feature_index(n[static_cast<size_t>(i)]) == i);
        for (int k = i + 1; k < kNumFeatures; ++k) CHECK(std::string(n[static_cast<size_t>(i)]) != n[static_cast<size_t>(k)]);
    }
    CHECK(feature_index("no_such_feature") == -1);
}

TEST_CASE("synth: outcome rates and failure clustering look like the Mistral study") {
    SynthOptions opt;
    opt.jobs = 60000;
    opt.seed = 42;
    std::FILE *devnull = std::fopen("/dev/null", "wb");
    auto s = generate_workload(opt, devnull);
    std::fclose(devnull);
    auto pct = [&](uint64_t n) { return 100.0 * static_cast<double>(n) / static_cast<double>(s.jobs); };
    INFO("completed " << pct(s.completed) << " failed " << pct(s.failed) << " timeout " << pct(s.timeout)
                      << " cancelled " << pct(s.cancelled));
    CHECK(pct(s.completed) > 85);
    CHECK(pct(s.completed) < 94);
    CHECK(pct(s.failed) > 3);
    CHECK(pct(s.failed) < 9);
    CHECK(pct(s.timeout) > 0.5);
    CHECK(pct(s.timeout) < 3);
    CHECK(pct(s.cancelled) > 1);
    CHECK(pct(s.cancelled) < 3);
    double after_fail = static_cast<double>(s.fail_after_fail) / static_cast<double>(s.after_fail);
    double first = static_cast<double>(s.first_run_fail) / static_cast<double>(s.first_runs);
    INFO("P(fail | previous failed) " << after_fail << ", P(fail | first run) " << first);
    CHECK(after_fail > 0.45);
    CHECK(after_fail > 3 * first);
}

TEST_CASE("metrics: the bound must hold in each half of the window, not only on its average") {
    // 2,000 rows in time order, the same scores in each half. The first half's top 400 all failed; the second
    // half's top 400 failed at 85%. Flagging the top 400 of each is 740 of 800 (0.925, bound 0.907: enough
    // overall), but the second half alone never reaches 0.9: no threshold may claim the target.
    std::vector<float> s(2000);
    std::vector<int> l(2000);
    for (int i = 0; i < 1000; ++i) {
        s[i] = s[1000 + i] = static_cast<float>(1000 - i) / 1000.0f;
        l[i] = i < 400;
        l[1000 + i] = i < 400 && i % 20 < 17;
    }
    CHECK(wilson_lower(740, 800) >= 0.9);
    CHECK_FALSE(choose_threshold(s, l, 0.9, 5).target_reached);
    // With both halves like the first, the target is reached.
    for (int i = 0; i < 1000; ++i) l[1000 + i] = l[i];
    CHECK(choose_threshold(s, l, 0.9, 5).target_reached);
}

TEST_CASE("synth: the export written to a file is the workload generate_workload writes, with its header") {
    jfp::test::TempDir dir;
    SynthOptions opt;
    opt.jobs = 500;
    opt.seed = 7;
    const std::string path = dir.file("synth.txt");
    const SynthStats s = write_synthetic_export(opt, path, true);
    std::ifstream f(path);
    std::string header, line;
    std::getline(f, header);
    uint64_t rows = 0;
    while (std::getline(f, line)) ++rows;
    CHECK(rows == s.rows);
    CHECK(s.jobs >= 400);
    CHECK(header.find("JobIDRaw") != std::string::npos);
    CHECK_THROWS_WITH(write_synthetic_export(opt, dir.file("no/such/dir/x.txt"), true), HasText("cannot write"));
}

TEST_CASE("best rule: a rule beats the one before it only by more than a tie; a tie goes to the earlier rule") {
    std::array<BinaryMetrics, kNumRules> m{};
    for (auto &x : m) x.pr_auc = 0.547;
    m[2].pr_auc = 0.547 + kVerdictTie / 2;  // float rounding between rules that rank the jobs alike
    CHECK(best_rule(m) == Rule::LastUserNameFailed);
    m[2].pr_auc = 0.547 + kVerdictTie * 3;
    CHECK(best_rule(m) == Rule::UserStemRecentRate);
    m[0].pr_auc = 0.2;
    m[2].pr_auc = 0.3;
    CHECK(best_rule(m) == Rule::UserRecentRate);  // 0.547 against 0.3
}

}  // namespace test_metrics_traits
