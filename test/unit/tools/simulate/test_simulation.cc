// jfp simulate's engine (tools/simulate/simulation): a policy replayed over a store, the jobs it would have
// warned, rejected or annotated counted overall and per user, against the scores the sweep gives.
#include <algorithm>
#include <climits>
#include <fstream>
#include <map>
#include <string>

#include "catch.h"
#include "model/scoring/feature_sweep.h"
#include "model/util/time_util.h"
#include "bundle_support.h"
#include "test_support.h"
#include "tools/simulate/simulation.h"

namespace test_simulation {

using namespace jfp;

TEST_CASE("simulate: each mode acts on exactly the jobs the bundle flags, counted overall and per user", "[simulate]") {
    test::TempDir dir;
    const std::string db = test::build_store(dir, 3000, 61);
    const std::string model = test::train_small_bundle(dir, db, 10);
    const ModelBundle bundle = ModelBundle::load_file(model);
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    const int64_t after = test::submit_time_between(store, 2, 3);

    // What the replay must find, from the sweep and the bundle's threshold.
    uint64_t jobs = 0, above = 0, above_failed = 0, above_completed = 0;
    std::map<std::string, uint64_t> above_by_user;
    sweep_features(store, [&](const JobRecord &j, const FeatureVector &x) {
        if (j.submit < after) return;
        ++jobs;
        if (bundle.score(x).p_fail < bundle.threshold()) return;
        ++above;
        ++above_by_user[j.user];
        if (is_labeled(j.outcome)) ++(is_failure(j.outcome) ? above_failed : above_completed);
    });
    REQUIRE(above > 0);

    SimulateOptions o;
    o.db = db;
    o.model = model;
    o.after = after;
    o.config.mode = Mode::Warn;
    const std::vector<int64_t> trusted{0};
    const Simulation warn = simulate_policy(store, bundle, o, trusted, ClusterDefaults{});
    CHECK(warn.jobs.size() == jobs);
    CHECK(warn.all.jobs == jobs);
    CHECK(warn.all.warned == above);
    CHECK(warn.all.rejected == 0);
    CHECK(warn.all.annotated == 0);
    CHECK(warn.all.acted_failed == above_failed);
    CHECK(warn.all.acted_completed == above_completed);
    uint64_t per_user_jobs = 0;
    for (const auto &[user, t] : warn.by_user) {
        per_user_jobs += t.jobs;
        CHECK(t.warned == above_by_user[user]);
    }
    CHECK(per_user_jobs == jobs);
    CHECK(warn.scripts_note == "script findings not replayed: jfp.conf sets no script_archive, so no script was kept");

    // Reject mode acts on the same jobs (some only warned: little history, or a model below its target).
    o.config.mode = Mode::Reject;
    const Simulation reject = simulate_policy(store, bundle, o, trusted, ClusterDefaults{});
    CHECK(reject.all.acted() == above);
    CHECK(reject.all.rejected + reject.all.warned == above);

    o.config.mode = Mode::Annotate;
    CHECK(simulate_policy(store, bundle, o, trusted, ClusterDefaults{}).all.annotated == jobs);
    o.config.mode = Mode::Off;
    CHECK(simulate_policy(store, bundle, o, trusted, ClusterDefaults{}).all.acted() == 0);

    // A threshold in jfp.conf above every score: nothing is warned.
    o.config.mode = Mode::Warn;
    o.config.threshold = 1.01;
    CHECK(simulate_policy(store, bundle, o, trusted, ClusterDefaults{}).all.warned == 0);

    o.after = *parse_sacct_time("2099-01-01");
    CHECK_THROWS_WITH(simulate_policy(store, bundle, o, trusted, ClusterDefaults{}), HasText("choose an earlier --after"));
}

TEST_CASE("simulate run: the jobs CSV holds one row per job replayed, with the action the tally counted", "[simulate]") {
    test::TempDir dir;
    const std::string db = test::build_store(dir, 3000, 62);
    const std::string model = test::train_small_bundle(dir, db, 10);
    test::write_file(dir.file("slurm.conf"), "ClusterName=c\nSlurmUser=root\n");
    SimulateOptions o;
    o.conf_path = dir.file("jfp.conf");
    o.slurm_conf = dir.file("slurm.conf");
    o.db = db;
    o.model = model;
    o.config.mode = Mode::Warn;
    o.jobs_csv = dir.file("jobs.csv");
    run_simulate(o);

    const ModelBundle bundle = ModelBundle::load_file(model);
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    const Simulation want = simulate_policy(store, bundle, o, {0}, ClusterDefaults{});
    std::ifstream f(o.jobs_csv);
    std::string header, line;
    std::getline(f, header);
    CHECK(header == "JobIDRaw,token,User,Partition,p_fail,action,State,script,script_action,cost,expected_waste,cost_unit");
    uint64_t rows = 0, warned = 0;
    while (std::getline(f, line)) {
        ++rows;
        warned += line.find(",warn,") != std::string::npos;
        CHECK(line.find(",not archived,") != std::string::npos);  // jfp.conf keeps no script archive
    }
    CHECK(rows == want.jobs.size());
    REQUIRE(want.all.warned > 0);
    CHECK(warned == want.all.warned);
}

}  // namespace test_simulation
