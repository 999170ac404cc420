// jfp parity: do the features the plugin computed at submission equal the ones the trainer rebuilds
// from sacct? Per feature, over every job that carries a logged token.
#include <climits>
#include <cmath>
#include <cstdio>
#include <array>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "model/store/history_store.h"
#include "model/scoring/feature_log.h"
#include "model/scoring/feature_sweep.h"
#include "tools/commands/commands.h"
#include "tools/options/site_conf.h"

namespace jfp {

namespace {

struct ParityArgs {
    ConfDefaults conf;  // --conf: the paths not given
    std::string db, feature_log, script_archive;
    bool json = false;
    double tolerance = 1e-3;
    std::string after, before;
};

bool same(float a, float b, double tol) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    double scale = std::max(1.0, std::max(std::fabs(static_cast<double>(a)), std::fabs(static_cast<double>(b))));
    return std::fabs(static_cast<double>(a) - static_cast<double>(b)) <= tol * scale;
}

// Known at submission alone: the module index the plugin read then is not kept, so nothing rebuilds it.
bool plugin_only(int f) { return f == F_script_missing_modules; }

void run_parity(const ParityArgs &a) {
    int64_t after = a.after.empty() ? INT64_MIN : parse_time_option(a.after, "--after");
    int64_t before = a.before.empty() ? INT64_MAX : parse_time_option(a.before, "--before");
    auto logged = read_feature_log(a.feature_log);
    HistoryStore store(a.db, HistoryStore::Access::ReadOnly);
    uint64_t jobs = 0;
    std::array<uint64_t, kNumFeatures> agree{}, differ{};
    std::array<std::string, kNumFeatures> example;
    std::unique_ptr<ArchivedScripts> scripts;
    if (!a.script_archive.empty()) scripts = std::make_unique<ArchivedScripts>(a.script_archive);
    sweep_features(store, [&](const JobRecord &j, const FeatureVector &rebuilt) {
        if (j.jfp_token.empty() || j.submit < after || j.submit >= before) return;
        auto it = logged.find(j.jfp_token);
        if (it == logged.end()) return;
        ++jobs;
        const FeatureVector &served = it->second.x;
        // A row of an earlier schema lacks the features appended since: they are not compared.
        const int count = feature_count_of_schema(it->second.schema_version);
        for (int f = 0; f < count; ++f) {
            size_t i = static_cast<size_t>(f);
            if (plugin_only(f)) continue;
            if (same(served[i], rebuilt[i], a.tolerance)) {
                ++agree[i];
            } else {
                ++differ[i];
                if (example[i].empty()) {
                    char buf[160];
                    std::snprintf(buf, sizeof buf, "job %s: plugin %g, sacct %g", j.job_key.c_str(),
                                  static_cast<double>(served[i]), static_cast<double>(rebuilt[i]));
                    example[i] = buf;
                }
            }
        }
    }, nullptr, nullptr, scripts.get());
    if (jobs == 0)
        throw std::runtime_error("no job in " + a.db + " carries a token found in " + a.feature_log +
                                 "; ingest a sacct export that includes AdminComment after the plugin scored jobs");
    if (a.json) {
        nlohmann::json j = {{"jobs", jobs}, {"features", nlohmann::json::object()}};
        for (int f = 0; f < kNumFeatures; ++f) {
            size_t i = static_cast<size_t>(f);
            j["features"][feature_names()[i]] = {{"agree", agree[i]}, {"differ", differ[i]}, {"example", example[i]},
                                                 {"compared", !plugin_only(f)}};
        }
        std::printf("%s\n", j.dump(2).c_str());
        return;
    }
    int differing = 0, compared = 0;
    for (int f = 0; f < kNumFeatures; ++f) {
        differing += differ[static_cast<size_t>(f)] > 0;
        compared += !plugin_only(f);
    }
    std::printf("jfp parity: %llu jobs with logged features; %d of %d features always agree\n",
                static_cast<unsigned long long>(jobs), compared - differing, compared);
    for (int f = 0; f < kNumFeatures; ++f) {
        size_t i = static_cast<size_t>(f);
        if (differ[i] == 0) continue;
        std::printf("  %-26s differs for %llu of %llu jobs (%s)\n", feature_names()[i],
                    static_cast<unsigned long long>(differ[i]), static_cast<unsigned long long>(jobs), example[i].c_str());
    }
}

}  // namespace

void add_parity_command(Command &app) {
    auto a = std::make_shared<ParityArgs>();
    auto *c = app.add_subcommand("parity",
                                 "Compare the features the plugin logged at submission with those rebuilt from sacct");
    c->add_option("--db", a->db, "history store (with the jobs' AdminComment ingested)");
    c->add_option("--feature-log", a->feature_log, "the plugin's feature log (feature_log in jfp.conf)");
    c->add_option("--tolerance", a->tolerance, "relative tolerance")->capture_default_str();
    c->add_option("--after", a->after, "only jobs submitted at or after this time");
    c->add_option("--before", a->before, "only jobs submitted before this time");
    c->add_option("--script-archive", a->script_archive,
                  "the plugin's script archive: rebuild script features from the archived scripts too");
    c->add_flag("--json", a->json, "print one JSON object");
    c->footer("sacct exports carry no scripts: without --script-archive, script features differ by design. "
              "script_missing_modules is not compared: it depends on the module index the plugin read at "
              "submission, which is not kept.");
    a->conf.add_option(c);
    c->callback([a] {
        a->conf.fill(a->db, ConfPath::Store, "--db", true);
        a->conf.fill(a->feature_log, ConfPath::FeatureLog, "--feature-log", true);
        run_parity(*a);
    });
}

}  // namespace jfp
