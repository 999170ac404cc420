// The features of a job may use only jobs that ended strictly before it was submitted. Checked two
// ways: hand-made edge cases, and an independent brute-force recomputation over a synthetic workload.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "catch.h"
#include "model/sacct/sacct_reader.h"
#include "model/scoring/feature_sweep.h"
#include "model/util/time_util.h"
#include "test_support.h"
#include "tools/simulate/synth.h"

namespace test_leakage {

using namespace jfp;

namespace {


std::map<std::string, FeatureVector> features_by_key(const HistoryStore &store) {
    std::map<std::string, FeatureVector> out;
    sweep_features(store, [&](const JobRecord &j, const FeatureVector &x) { out[j.job_key] = x; });
    return out;
}

}  // namespace

TEST_CASE("leakage: a job that ends in the second another is submitted is not its history") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::ingest_text(store, "JobIDRaw|User|JobName|Submit|Start|End|State\n"
                       "1|amy|sim|2024-01-01T00:00:00|2024-01-01T00:00:01|2024-01-01T01:00:00|FAILED\n"
                       "2|amy|sim|2024-01-01T01:00:00|2024-01-01T01:00:01|2024-01-01T02:00:00|FAILED\n"
                       "3|amy|sim|2024-01-01T01:00:01|2024-01-01T01:00:02|2024-01-01T03:00:00|COMPLETED\n"
                       "4|amy|sim|2024-01-01T00:30:00|2024-01-01T00:30:01|2024-01-01T05:00:00|COMPLETED\n"
                       "5|amy|sim|2024-01-01T04:00:00|2024-01-01T04:00:01|2024-01-01T04:10:00|COMPLETED\n");
    auto f = features_by_key(store);
    CHECK(f["1"][F_un_n] == 0);
    CHECK(std::isnan(f["1"][F_un_fail_rate]));
    CHECK(f["2"][F_un_n] == 0);  // job 1 ended at 01:00:00, the very second job 2 was submitted
    CHECK(f["3"][F_un_n] == 1);  // one second later it is history
    CHECK(f["3"][F_un_streak] == 1);
    CHECK(f["3"][F_un_last_outcome] == static_cast<float>(Outcome::Failed));
    // Job 5 sees 1, 2 and 3 (ended 01:00, 02:00, 03:00) but not 4, which ends at 05:00, after it was submitted.
    CHECK(f["5"][F_un_n] == 3);
    CHECK(f["5"][F_un_fail_rate] == Approx(2.0 / 3.0));
    CHECK(f["5"][F_un_streak] == 0);
    CHECK(f["5"][F_un_last_outcome] == static_cast<float>(Outcome::Completed));
    CHECK(f["5"][F_un_hours_since_end] == Approx(1.0));
    CHECK(f["5"][F_un_hours_since_fail] == Approx(2.0));
}

TEST_CASE("leakage: history features equal a brute-force recomputation from jobs ended before submit") {
    test::TempDir dir;
    std::string path = dir.file("w.txt");
    SynthOptions opt;
    opt.jobs = 4000;
    opt.users = 25;
    opt.seed = 7;
    opt.days = 10;
    std::FILE *out = std::fopen(path.c_str(), "wb");
    REQUIRE(out);
    generate_workload(opt, out);
    std::fclose(out);
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    {
        SacctReader reader({}, [&](JobRecord &&j) { store.put_job(j); }, [&](StepInfo &&s) { store.put_step(s); });
        auto id = store.begin_ingest(path);
        std::FILE *in = std::fopen(path.c_str(), "rb");
        reader.read(in, path);
        std::fclose(in);
        store.finish_ingest(id, reader.report());
    }
    std::vector<JobRecord> jobs;
    store.for_each_job([&](JobRecord &&j) { jobs.push_back(std::move(j)); });
    REQUIRE(jobs.size() > 3000);
    // Ended jobs in the order history is replayed: end time, then cluster and key.
    std::vector<const JobRecord *> ended;
    for (const auto &j : jobs)
        if (j.ended()) ended.push_back(&j);
    std::sort(ended.begin(), ended.end(), [](const JobRecord *a, const JobRecord *b) {
        if (a->end != b->end) return a->end < b->end;
        if (a->cluster != b->cluster) return a->cluster < b->cluster;
        return a->job_key < b->job_key;
    });
    auto f = features_by_key(store);
    size_t checked = 0, with_history = 0, in_arrays = 0;
    for (const auto &j : jobs) {
        // Brute force: everything of this user (+ name) that ended strictly before submission, as a list of
        // runs (history_stats.h): tasks of one array in a row are one run; a completed job weighs its
        // core-seconds ((elapsed + 1) x CPUs) against the smaller of the yardstick's and sqrt(60 x it), within
        // [0.01, 1] (1 with no failure before it); the yardstick: each failure sets it to the larger of its own
        // cost and a tenth of the yardstick before it.
        auto used_of = [](const JobRecord &k) {
            const double cpus = known(k.req_cpus) && k.req_cpus >= 1 ? k.req_cpus : 1;
            return known(k.elapsed_s) ? (k.elapsed_s + 1) * cpus : -1.0;
        };
        auto weight_of = [](double used, double fail_used) {
            const double ref = std::min(fail_used, std::sqrt(60.0 * fail_used));
            return used < 0 || ref <= 0 ? 1.0 : std::clamp(used / ref, 0.01, 1.0);
        };
        uint32_t n = 0;
        int last = -1;
        struct Run {
            std::string array;
            double jobs = 0, fails = 0, ok_weight = 0;
        };
        std::vector<Run> name_runs, user_runs;
        double name_fail_used = 0, user_fail_used = 0;
        auto add = [&](std::vector<Run> &runs, double &fail_used, const JobRecord &k) {
            if (runs.empty() || k.array_job.empty() || runs.back().array != k.array_job) runs.push_back({k.array_job});
            Run &r = runs.back();
            r.jobs += 1;
            const double used = used_of(k);
            const double weight = weight_of(used, fail_used);
            if (is_failure(k.outcome)) {
                r.fails += 1;
                fail_used = std::max(std::max(0.0, used), 0.1 * fail_used);
            } else {
                r.ok_weight += weight;
            }
            return weight;
        };
        for (const JobRecord *k : ended) {
            if (k->end >= j.submit) break;
            if (k->user != j.user) continue;
            if (is_labeled(k->outcome)) add(user_runs, user_fail_used, *k);
            if (k->name != j.name) continue;
            ++n;
            const double before = name_fail_used;
            if (is_labeled(k->outcome)) add(name_runs, name_fail_used, *k);
            const bool cheap = k->outcome == Outcome::Completed && weight_of(used_of(*k), before) < 0.5;
            if (!cheap) last = static_cast<int>(k->outcome);
        }
        struct Evidence {
            double fail_rate, recent, streak;
        };
        auto evidence = [](const std::vector<Run> &runs) {
            double wf = 0, wa = 0, rf = 0, ra = 0, streak = 0;
            for (const Run &r : runs) {
                const double q = r.fails / r.jobs, w = q + r.ok_weight / r.jobs, age = 1 - 0.1 * w;
                wf += q, wa += w;
                rf = rf * age + q, ra = ra * age + w;
                streak = 2 * r.fails >= r.jobs ? streak + 1 : streak * (1 - r.ok_weight / (r.jobs - r.fails));
            }
            return Evidence{wf / wa, rf / ra, streak};
        };
        for (const Run &r : name_runs) in_arrays += r.jobs > 1;
        const FeatureVector &x = f.at(j.job_key);
        INFO("job " << j.job_key << " user " << j.user << " name " << j.name);
        REQUIRE(x[F_un_n] == static_cast<float>(std::min<uint32_t>(n, kCountCap)));
        if (name_runs.empty()) {
            REQUIRE(x[F_un_streak] == 0);
            REQUIRE(std::isnan(x[F_un_fail_rate]));
        } else {
            const Evidence e = evidence(name_runs);
            REQUIRE(x[F_un_streak] == Approx(e.streak).margin(1e-4));
            REQUIRE(x[F_un_fail_rate] == Approx(e.fail_rate).margin(1e-4));
            REQUIRE(x[F_un_recent_fail_rate] == Approx(e.recent).margin(1e-4));
        }
        if (last < 0) REQUIRE(std::isnan(x[F_un_last_outcome]));
        else REQUIRE(x[F_un_last_outcome] == static_cast<float>(last));
        if (user_runs.empty()) REQUIRE(std::isnan(x[F_u_recent_fail_rate]));
        else REQUIRE(x[F_u_recent_fail_rate] == Approx(evidence(user_runs).recent).margin(1e-4));
        ++checked;
        with_history += n > 0;
    }
    CHECK(checked == jobs.size());
    CHECK(with_history > jobs.size() / 3);  // the check exercised real histories, not empty ones
    CHECK(in_arrays > 0);                    // and runs of several array tasks
}

TEST_CASE("leakage: the plugin's history is the training replay run to the end") {
    test::TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    test::ingest_text(store, "JobIDRaw|User|JobName|Submit|Start|End|State\n"
                       "1|amy|sim|2024-01-01T00:00:00|2024-01-01T00:00:01|2024-01-01T01:00:00|FAILED\n"
                       "2|amy|sim|2024-01-01T02:00:00|2024-01-01T02:00:01|2024-01-01T03:00:00|TIMEOUT\n"
                       "3|bob|x|2024-01-01T02:00:00|2024-01-01T02:00:01|2024-01-01T03:00:00|COMPLETED\n");
    HistoryIndex live = load_history(store);
    CHECK(live.jobs_added() == 3);
    JobRequest req;
    req.user = "amy";
    req.name = "sim";
    req.submit_time = *parse_sacct_time("2024-01-02T00:00:00");
    FeatureVector x;
    build_features(req, live.lookup(req), x);
    CHECK(x[F_un_n] == 2);
    CHECK(x[F_un_streak] == 2);
    CHECK(x[F_un_timeout_rate] == Approx(0.5));
    CHECK(x[F_u_n] == 2);
    CHECK(x[F_us_n] == 2);
}

}  // namespace test_leakage
