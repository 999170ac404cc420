// The script's certain findings (ignored #SBATCH lines, modules the index lacks) as the model's features
// (schema 3): logged by the plugin, kept for updates, rebuilt alike by the trainer; and the feature log's
// rows of schema 2 read as a prefix.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>
#include <cmath>
#include <fstream>
#include <random>
#include <string>

#include "catch.h"
#include "engine_site.h"
#include "model/files/sqlite_util.h"
#include "model/policy/policy.h"
#include "model/request/job_record_view.h"
#include "model/jobs/outcome.h"
#include "model/scoring/feature_log.h"
#include "model/scoring/feature_sweep.h"
#include "model/scoring/model_bundle.h"
#include "model/util/log.h"
#include "model/scoring/features.h"
#include "model/script/ignored_directives.h"
#include "bundle_support.h"
#include "test_support.h"
#include "tools/train/trainer.h"

namespace test_finding_features {

using namespace jfp;
using test::request;
using test::Site;

namespace {
const char *kIndex = R"({"python": {"/m/python/3.11.4.lua": {"fullName": "python/3.11.4"}}})";

float logged_feature(const std::string &log, const JoinToken &token, int f) {
    return read_feature_log(log).at(token.str()).x[static_cast<size_t>(f)];
}

// An engine as slurmctld runs it (the feature log is written by its background thread), once its model,
// feature log and (when `modules`) module index are loaded.
std::unique_ptr<Engine> started(const Site &site, bool modules) {
    EngineOptions o = site.options();
    o.background = true;
    auto e = std::make_unique<Engine>(o);
    auto ready = [&] {
        if (e->model_id().empty() || e->background_writers() != 1) return false;
        if (!modules) return true;
        SubmitRequest probe = request("probe");
        probe.script = "#!/bin/bash\nmodule load nosuchmodule\n";
        auto out = e->evaluate(probe);
        auto a = out.new_comment ? parse_annotation(*out.new_comment) : std::nullopt;
        return a && a->script == "missing_module";
    };
    for (int i = 0; i < 1200 && !ready(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    REQUIRE(ready());
    return e;
}
}  // namespace

TEST_CASE("finding features: the plugin logs each finding's count, NaN where it was not looked for") {
    Site site;
    const std::string index = site.dir.file("modules.json"), log = site.dir.file("features.db");
    test::write_file(index, kIndex);
    site.config("mode = annotate\nfeature_log = " + log + "\nmodules_index = " + index + "\n");
    struct Case {
        const char *script;
        float ignored, missing;
    };
    const Case cases[] = {
        {"#!/bin/bash\nmodule load python/3.11\nsrun ./a.out\n", 0, 0},
        {"#!/bin/bash\nmodule load pyhton/3.11\nmodule load gcc/99\nsrun ./a.out\n", 0, 2},
        {"#!/bin/bash\nsrun ./a.out\n#SBATCH --mem=4G\n#SBATCH -t 10\n", 2, 0},
        {"#!/bin/bash\nmodule load pyhton\n#SBATCH --mem=4G\n", 1, 1},
    };
    std::vector<std::pair<JoinToken, Case>> sent;
    {
        auto engine = started(site, true);
        Engine &e = *engine;
        for (const Case &c : cases) {
            SubmitRequest r = request("sim");
            r.script = c.script;
            auto out = e.evaluate(r);
            REQUIRE_FALSE(out.token.empty());
            sent.emplace_back(out.token, c);
        }
        // salloc/srun: no script, so neither finding was looked for.
        SubmitRequest r = request("interactive");
        r.has_script = false;
        r.script = {};
        auto out = e.evaluate(r);
        REQUIRE(e.flush_for_exit(std::chrono::seconds(30)));
        CHECK(std::isnan(logged_feature(log, out.token, F_script_ignored_sbatch)));
        CHECK(std::isnan(logged_feature(log, out.token, F_script_missing_modules)));
    }
    for (const auto &[token, c] : sent) {
        INFO(c.script);
        CHECK(logged_feature(log, token, F_script_ignored_sbatch) == c.ignored);
        CHECK(logged_feature(log, token, F_script_missing_modules) == c.missing);
    }

    // The actions off: ignored lines are still counted (the feature must not depend on the setting); the
    // module scan, which is what `off` saves, is not run.
    site.config("mode = annotate\nfeature_log = " + log + "\nmodules_index = " + index +
                "\nmissing_modules = off\nignored_directives = off\n");
    JoinToken token;
    {
        auto engine = started(site, false);
        Engine &e = *engine;
        SubmitRequest r = request("sim");
        r.script = cases[3].script;
        token = e.evaluate(r).token;
        REQUIRE(e.flush_for_exit(std::chrono::seconds(30)));
    }
    CHECK(logged_feature(log, token, F_script_ignored_sbatch) == 1);
    CHECK(std::isnan(logged_feature(log, token, F_script_missing_modules)));
}

TEST_CASE("finding features: an update, whose script is not at hand, scores with the submission's findings") {
    Site site;
    const std::string index = site.dir.file("modules.json"), log = site.dir.file("features.db");
    test::write_file(index, kIndex);
    site.config("mode = annotate\nfeature_log = " + log + "\nmodules_index = " + index + "\n");
    auto engine = started(site, true);
    Engine &e = *engine;
    SubmitRequest r = request("sim");
    r.script = "#!/bin/bash\nmodule load pyhton\nsrun ./a.out\n#SBATCH --mem=4G\n";
    auto out = e.evaluate(r);
    auto facts = parse_submission_facts(out.admin_comment_append);
    REQUIRE(facts);
    CHECK(facts->findings.ignored_sbatch == 1);
    CHECK(facts->findings.missing_modules == 1);

    JobRecordView job;
    job.readable = true;
    job.owner_uid = 4242;
    job.job = request("sim");
    job.job.has_script = false;  // slurmctld's record of a job does not give jfp its script
    // Counts the submission's log row does not hold: what the update logs can come only from AdminComment.
    std::string admin = out.admin_comment_append;
    const size_t at = admin.find(".1.1");
    REQUIRE(at != std::string::npos);
    REQUIRE(admin.find(".1.1", at + 1) == std::string::npos);
    admin.replace(at, 4, ".3.2");
    job.admin_comment = admin;
    SubmitRequest delta;
    delta.uid = 4242;
    delta.time_limit_min = 30;
    auto upd = e.evaluate_update("77", delta, 4242, job);
    REQUIRE(upd.decision.scored);
    REQUIRE(e.flush_for_exit(std::chrono::seconds(30)));
    CHECK(logged_feature(log, out.token, F_script_ignored_sbatch) == 3);
    CHECK(logged_feature(log, out.token, F_script_missing_modules) == 2);
}

TEST_CASE("finding features: build_features counts ignored lines in a known script as the plugin's evidence does") {
    // Random scripts of directive, command, comment, here-document and blank lines: build_features over
    // the script (the trainer's way) equals the plugin's evidence count, up to the scan's cap.
    const char *pieces[] = {"#SBATCH --mem=4G\n", "  #SBATCH -t 5\n", "srun ./a\n", "# a comment\n", "\n",
                            "cat <<EOF\n#SBATCH -n 2\nEOF\n", "module load x\n", "#SBATCHING\n", "echo hi\\\n", "#!/bin/bash\n"};
    std::mt19937 g(5);
    for (int round = 0; round < 3000; ++round) {
        std::string script;
        for (int n = static_cast<int>(g() % 20); n > 0; --n) script += pieces[g() % (sizeof pieces / sizeof *pieces)];
        JobRequest r;
        r.script = script;
        r.script_known = true;
        r.submit_time = 1700000000;
        FeatureVector x;
        build_features(r, HistoryView{}, x);
        INFO(script);
        CHECK(x[F_script_ignored_sbatch] == static_cast<float>(find_ignored_directives(script).ignored.size()));
        CHECK(std::isnan(x[F_script_missing_modules]));  // only the plugin has the index at submission
    }
    // No script known (a sacct row without an archived script): unknown, not zero.
    JobRequest none;
    FeatureVector x;
    build_features(none, HistoryView{}, x);
    CHECK(std::isnan(x[F_script_ignored_sbatch]));
}

TEST_CASE("finding features: a feature log row of schema 2 reads as a prefix, the appended features unknown") {
    test::TempDir dir;
    const std::string path = dir.file("f.db");
    FeatureVector x;
    for (int f = 0; f < kNumFeatures; ++f) x[static_cast<size_t>(f)] = static_cast<float>(f) + 0.5f;
    {
        FeatureLogWriter w(path, 16);
        for (const char *t : {"now", "then", "older", "wrongwidth"}) {
            FeatureLogEntry e;
            e.token = t;
            e.model_id = std::make_shared<const std::string>("m");
            e.x = x;
            REQUIRE(w.push(std::move(e)));
        }
        w.flush();
    }
    {
        // As a jfp of schema 2 wrote them: 52 floats; one of schema 1 (not a prefix), one of a wrong width.
        Db db(path, SQLITE_OPEN_READWRITE);
        const int old = feature_count_of_schema(2) * static_cast<int>(sizeof(float));
        const std::string width = std::to_string(old);
        db.exec(("UPDATE scored SET schema_version = 2, features = substr(features, 1, " + width + ") WHERE token = 'then'").c_str());
        db.exec(("UPDATE scored SET schema_version = 1, features = substr(features, 1, " + width + ") WHERE token = 'older'").c_str());
        db.exec("UPDATE scored SET schema_version = 2 WHERE token = 'wrongwidth'");
    }
    auto log = read_feature_log(path);
    REQUIRE(log.count("now") == 1);
    REQUIRE(log.count("then") == 1);
    CHECK(log.count("older") == 0);
    CHECK(log.count("wrongwidth") == 0);
    CHECK(log.at("now").x == x);
    const FeatureVector &then = log.at("then").x;
    for (int f = 0; f < kNumFeatures; ++f) {
        INFO(feature_names()[static_cast<size_t>(f)]);
        if (f < feature_count_of_schema(2)) CHECK(then[static_cast<size_t>(f)] == x[static_cast<size_t>(f)]);
        else CHECK(std::isnan(then[static_cast<size_t>(f)]));
    }
    CHECK(log.at("then").schema_version == 2);

    // An update of the job submitted before the upgrade (its script not at hand) keeps that row's script
    // features; the findings, which schema 2 did not have, stay unknown.
    {
        FeatureLogWriter w(path, 16);
        FeatureLogEntry e;
        e.token = "then";
        e.model_id = std::make_shared<const std::string>("m");
        e.update = true;
        e.x.fill(std::nanf(""));
        REQUIRE(w.push(std::move(e)));
        w.flush();
    }
    const auto after = read_feature_log(path);
    const auto &updated = after.at("then");
    CHECK(updated.schema_version == kFeatureSchemaVersion);
    for (int f = F_script_bytes; f <= F_script_set_e; ++f) CHECK(updated.x[static_cast<size_t>(f)] == x[static_cast<size_t>(f)]);
    CHECK(std::isnan(updated.x[F_script_ignored_sbatch]));
    CHECK(std::isnan(updated.x[F_script_missing_modules]));
}

TEST_CASE("finding features: the plugin scores with a deployed schema-2 bundle after the upgrade, and says so") {
    Site site;
    std::ifstream in(site.model);
    nlohmann::json b = nlohmann::json::parse(in);
    test::write_file(site.model, test::as_schema_2(b).dump());
    site.config("mode = annotate\n");
    static std::vector<std::string> logged;
    logged.clear();
    set_log_sink([](LogLevel, const char *m) { logged.emplace_back(m); });
    Engine e(site.options());
    set_log_sink(nullptr);
    REQUIRE_FALSE(e.model_id().empty());  // loaded, not refused
    // The load line the admin guide quotes ("Upgrades and removal").
    const std::string says = "; trained on feature schema 2, read as the first " + std::to_string(F_script_ignored_sbatch) +
                             " of this jfp's " + std::to_string(kNumFeatures) + " features";
    const std::string ends = ": retrain (jfp train) for it to learn from the others";
    CHECK(std::any_of(logged.begin(), logged.end(), [&](const std::string &l) {
        return l.rfind("loaded model ", 0) == 0 && l.find(says) != std::string::npos && l.size() > ends.size() &&
               l.compare(l.size() - ends.size(), ends.size(), ends) == 0;
    }));
    auto out = e.evaluate(request("sim"));
    CHECK(out.decision.scored);
    CHECK(out.new_comment);
    // The same score as the bundle it was made from, written as schema 3 (both read the pooled rates as
    // unknown: they meant the jobs' then).
    b["feature_schema"]["version"] = 3;
    test::write_file(site.model, b.dump());
    site.config("mode = annotate\n# reload\n");
    Engine now(site.options());
    auto again = now.evaluate(request("sim"));
    CHECK(again.decision.p_fail == out.decision.p_fail);
}

TEST_CASE("finding features: the trainer learns a finding's failure rate from the plugin's feature log") {
    test::TempDir dir;
    const std::string db = test::build_store(dir, 12000, 13), log = dir.file("features.db");
    {
        Db w(db, SQLITE_OPEN_READWRITE);
        w.exec("UPDATE jobs SET jfp_token = printf('%016x', rowid)");  // as if every job carried jfp's token
    }
    // The plugin's log: each job's vector as rebuilt from sacct, with an ignored #SBATCH line in a third of
    // the jobs that failed and in 1 in 100 of the others (sacct alone knows nothing of it).
    std::mt19937 g(3);
    uint64_t planted_failed = 0, planted_ok = 0;
    {
        HistoryStore store(db, HistoryStore::Access::ReadOnly);
        FeatureLogWriter w(log, 1 << 15);
        auto model_id = std::make_shared<const std::string>("m");
        sweep_features(store, [&](const JobRecord &j, const FeatureVector &x) {
            FeatureLogEntry e;
            e.token = j.jfp_token;
            e.model_id = model_id;
            e.scored_at = j.submit;
            e.x = x;
            const bool failed = is_failure(j.outcome), found = failed ? g() % 3 == 0 : g() % 100 == 0;
            e.x[F_script_ignored_sbatch] = found ? 1.0f : 0.0f;
            (failed ? planted_failed : planted_ok) += found;
            REQUIRE(w.push(std::move(e)));
        });
        w.flush();
    }
    REQUIRE(planted_failed > 100);
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    TrainOptions opt;
    opt.nthread = 1;
    opt.rounds = 60;
    opt.kind = "tree";
    opt.feature_log = log;
    TrainSummary s;
    const auto bundle = ModelBundle::from_json(train_bundle(store, opt, s), "b");
    CHECK(s.logged_vectors > 10000);
    CHECK(bundle.uses_feature(F_script_ignored_sbatch));
    // The same job with the finding scores higher, never lower (the feature is raise-only).
    double raised = 0;
    int n = 0;
    sweep_features(store, [&](const JobRecord &, const FeatureVector &x) {
        if (n >= 2000) return;
        FeatureVector without = x, with = x;
        without[F_script_ignored_sbatch] = 0;
        with[F_script_ignored_sbatch] = 1;
        const float a = bundle.score(without).p_fail, b = bundle.score(with).p_fail;
        CHECK(b >= a);
        raised += b - a;
        ++n;
    });
    CHECK(raised / n > 0.05);
}

// Schema 4 changed what the partition's and account's rates mean (users', not jobs'): a bundle trained
// before reads them as unknown, whatever they are now, and says so when it loads.
TEST_CASE("finding features: a bundle of schema 3 reads the pooled rates as unknown") {
    Site site;
    std::ifstream in(site.model);
    const nlohmann::json now = nlohmann::json::parse(in);
    nlohmann::json old = now;
    old["feature_schema"]["version"] = 3;
    const ModelBundle b4 = ModelBundle::load_text(now.dump(), "now"), b3 = ModelBundle::load_text(old.dump(), "old");
    const bool pooled = b4.uses_feature(F_p_fail_rate) || b4.uses_feature(F_p_recent_fail_rate) ||
                        b4.uses_feature(F_a_fail_rate) || b4.uses_feature(F_a_recent_fail_rate);
    REQUIRE(pooled);  // the fixture's model splits on them, or this case tests nothing
    CHECK(b3.pooled_forgotten());
    CHECK_FALSE(b4.pooled_forgotten());
    std::mt19937_64 rng(4);
    std::uniform_real_distribution<float> u(0, 1);
    int moved = 0;
    for (int i = 0; i < 500; ++i) {
        FeatureVector x;
        for (float &v : x) v = u(rng) < 0.2f ? std::nanf("") : u(rng) * 50;
        for (int f : {F_p_fail_rate, F_p_recent_fail_rate, F_a_fail_rate, F_a_recent_fail_rate}) x[static_cast<size_t>(f)] = u(rng);
        FeatureVector unknown = x;
        for (int f : {F_p_fail_rate, F_p_recent_fail_rate, F_a_fail_rate, F_a_recent_fail_rate}) unknown[static_cast<size_t>(f)] = std::nanf("");
        const Score old_x = b3.score(x), old_unknown = b3.score(unknown);
        CHECK(old_x.p_fail == old_unknown.p_fail);
        for (size_t c = 0; c < kFailureClasses; ++c) CHECK(old_x.p_class[c] == old_unknown.p_class[c]);
        // A bundle of this schema reads them.
        moved += b4.score(x).p_fail != b4.score(unknown).p_fail;
        // Nothing else changed: where they are unknown, both read alike.
        CHECK(b3.score(unknown).p_fail == b4.score(unknown).p_fail);
    }
    CHECK(moved > 0);
}

}  // namespace test_finding_features
