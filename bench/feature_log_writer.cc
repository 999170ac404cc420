// Benchmark: the feature-log writer's CPU per row at slurmctld's pace, with v0.4's wholly random join
// tokens against the same writer given the plugin's tokens (model/jobs/token_issuer.h: the issuing second,
// then a permuted counter), in the same run (alternating runs). The log is the table the plugin writes
// (model/scoring/feature_log_writer.cc), its token the primary key: a random key dirties one index page
// per row, a key that ascends with the second appends. Both runs' prefilled rows have their run's kind of
// token (the log of a site past its first prune after the upgrade); with --upgrade, v0.4's random tokens
// (a log in the months after the upgrade, where the new tokens land at one point inside the index). What
// is measured is the process's CPU per row minus the same pacing loop pushing nothing (the writer then
// idles on its timer), so the figure is the writer's work and the pushes'.
//
//   jfp_bench_feature_log [--rows N] [--prefill N] [--burst B] [--gap-us U] [--pairs P] [--dir D] [--upgrade]
//
// Prints a line per run and one JSON object as its last line.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/jobs/token_issuer.h"
#include "model/scoring/feature_log.h"

namespace {

struct Options {
    int rows = 3000, prefill = 20000, burst = 4, gap_us = 7000, pairs = 4;  // ~550 rows/s, slurmctld's pace here
    std::string dir = "/tmp";
    bool upgrade = false;  // the prefill is v0.4's random tokens in both runs
};

double process_cpu_s() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// One run: a fresh log of `prefill` rows, then `rows` pushed `burst` at a time every `gap_us`. Returns the
// process CPU per row slot (pushes or not) in microseconds.
double run(const Options &o, bool issued, bool push) {
    const std::string path = o.dir + "/jfp-bench-featurelog.db";
    for (const char *suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
    auto model_id = std::make_shared<const std::string>("20261130T000000-abcdef12");
    std::mt19937_64 rng(7);
    jfp::TokenIssuer issuer;
    const double rows_per_s = 1e6 * o.burst / o.gap_us;  // the paced clock's seconds
    auto entry = [&](int i) {
        jfp::FeatureLogEntry e;
        e.scored_at = 1764460800 + static_cast<int64_t>(i / rows_per_s);
        const bool new_token = issued && !(o.upgrade && i < o.prefill);
        e.token = new_token ? issuer.issue_at(static_cast<uint64_t>(e.scored_at)) : jfp::JoinToken::hex(rng());
        e.model_id = model_id;
        e.uid = 20000 + static_cast<uint32_t>(i % 50);
        e.user = "user" + std::to_string(i % 50);
        e.name = "bench_" + std::to_string(i % 20);
        e.p_fail = 0.1f;
        e.top_class = -1;
        e.action = 1;
        e.threshold = 0.2f;
        for (auto &v : e.x) v = static_cast<float>(rng() % 1000) / 10.0f;
        return e;
    };
    {
        jfp::FeatureLogWriter fill(path, 65536);
        for (int i = 0; i < o.prefill; ++i) {
            fill.push(entry(i));
            if (i % 1000 == 999) fill.flush();
        }
        fill.flush();
    }
    jfp::FeatureLogWriter w(path, 65536);
    w.flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const double c0 = process_cpu_s();
    for (int i = 0; i < o.rows; i += o.burst) {
        if (push)
            for (int k = 0; k < o.burst; ++k) w.push(entry(o.prefill + i + k));
        std::this_thread::sleep_for(std::chrono::microseconds(o.gap_us));
    }
    w.flush();
    const double per_row = (process_cpu_s() - c0) * 1e6 / o.rows;
    if (push && w.written() != static_cast<uint64_t>(o.rows)) {
        std::fprintf(stderr, "bench: the writer wrote %llu of %d rows\n", static_cast<unsigned long long>(w.written()), o.rows);
        std::exit(1);
    }
    for (const char *suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
    return per_row;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--upgrade") {
            o.upgrade = true;
            --i;  // a flag: no value
            continue;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "%s: %s needs a value\n", argv[0], a.c_str());
            return 2;
        }
        const char *v = argv[i + 1];
        if (a == "--rows") o.rows = std::atoi(v);
        else if (a == "--prefill") o.prefill = std::atoi(v);
        else if (a == "--burst") o.burst = std::max(1, std::atoi(v));
        else if (a == "--gap-us") o.gap_us = std::atoi(v);
        else if (a == "--pairs") o.pairs = std::max(1, std::atoi(v));
        else if (a == "--dir") o.dir = v;
        else {
            std::fprintf(stderr, "usage: %s [--rows N] [--prefill N] [--burst B] [--gap-us U] [--pairs P] [--dir D] [--upgrade]\n", argv[0]);
            return 2;
        }
    }
    std::vector<double> idle, random, issued, ratio;
    for (int p = 0; p < o.pairs; ++p) {
        idle.push_back(run(o, false, false));
        // Alternate which goes first, so that a drift over the run falls on both alike.
        const bool random_first = p % 2 == 0;
        double r = 0, a = 0;
        if (random_first) {
            r = run(o, false, true);
            a = run(o, true, true);
        } else {
            a = run(o, true, true);
            r = run(o, false, true);
        }
        random.push_back(r - idle.back());
        issued.push_back(a - idle.back());
        ratio.push_back(issued.back() > 0 ? random.back() / issued.back() : 0);
        std::printf("pair %d: us of CPU per row: random tokens %.2f, issued %.2f (pacing loop alone %.2f)\n", p + 1,
                    random.back(), issued.back(), idle.back());
    }
    auto range = [](const std::vector<double> &v) {
        return nlohmann::json{{"median", median(v)}, {"min", *std::min_element(v.begin(), v.end())},
                              {"max", *std::max_element(v.begin(), v.end())}};
    };
    std::printf("feature-log writer, %d rows at %d per %d us after %d: v0.4's random tokens %.2f us per row, issued %.2f "
                "(medians of %d pairs); random / issued %.2f (%.2f - %.2f)\n",
                o.rows, o.burst, o.gap_us, o.prefill, median(random), median(issued), o.pairs, median(ratio),
                *std::min_element(ratio.begin(), ratio.end()), *std::max_element(ratio.begin(), ratio.end()));
    nlohmann::json j = {{"feature_log_row_cpu_us_random_tokens", range(random)},
                        {"feature_log_row_cpu_us_issued_tokens", range(issued)},
                        {"feature_log_random_over_issued", range(ratio)},
                        {"feature_log_pacing_loop_us", range(idle)},
                        {"rows", o.rows},
                        {"prefill", o.prefill},
                        {"prefill_v04_tokens", o.upgrade},
                        {"pairs", o.pairs}};
    std::printf("%s\n", j.dump().c_str());
    return 0;
}
