#include "tools/score/feature_parity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "model/archive/archived_scripts.h"
#include "model/scoring/feature_sweep.h"

namespace jfp {

namespace {

bool same(float a, float b, double tol) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    double scale = std::max(1.0, std::max(std::fabs(static_cast<double>(a)), std::fabs(static_cast<double>(b))));
    return std::fabs(static_cast<double>(a) - static_cast<double>(b)) <= tol * scale;
}

}  // namespace

bool plugin_only_feature(int f) { return f == F_script_missing_modules; }

FeatureParity compare_logged_features(const HistoryStore &store,
                                      const std::unordered_map<std::string, LoggedFeatures> &logged,
                                      const ParityOptions &o) {
    FeatureParity r;
    std::unique_ptr<ArchivedScripts> scripts;
    if (!o.script_archive.empty()) scripts = std::make_unique<ArchivedScripts>(o.script_archive);
    sweep_features(store, [&](const JobRecord &j, const FeatureVector &rebuilt) {
        if (j.jfp_token.empty() || j.submit < o.after || j.submit >= o.before) return;
        auto it = logged.find(j.jfp_token);
        if (it == logged.end()) return;
        ++r.jobs;
        const FeatureVector &served = it->second.x;
        // A row of an earlier schema lacks the features appended since: they are not compared.
        const int count = feature_count_of_schema(it->second.schema_version);
        for (int f = 0; f < count; ++f) {
            size_t i = static_cast<size_t>(f);
            if (plugin_only_feature(f)) continue;
            if (same(served[i], rebuilt[i], o.tolerance)) {
                ++r.agree[i];
            } else {
                ++r.differ[i];
                if (r.example[i].empty()) {
                    char buf[160];
                    std::snprintf(buf, sizeof buf, "job %s: plugin %g, sacct %g", j.job_key.c_str(),
                                  static_cast<double>(served[i]), static_cast<double>(rebuilt[i]));
                    r.example[i] = buf;
                }
            }
        }
    }, nullptr, nullptr, scripts.get());
    if (r.jobs == 0)
        throw std::runtime_error("no job in " + o.db + " carries a token found in " + o.feature_log +
                                 "; ingest a sacct export that includes AdminComment after the plugin scored jobs");
    return r;
}

void run_parity(const ParityOptions &o) {
    auto logged = read_feature_log(o.feature_log);
    HistoryStore store(o.db, HistoryStore::Access::ReadOnly);
    const FeatureParity r = compare_logged_features(store, logged, o);
    if (o.json) {
        nlohmann::json j = {{"jobs", r.jobs}, {"features", nlohmann::json::object()}};
        for (int f = 0; f < kNumFeatures; ++f) {
            size_t i = static_cast<size_t>(f);
            j["features"][feature_names()[i]] = {{"agree", r.agree[i]}, {"differ", r.differ[i]}, {"example", r.example[i]},
                                                 {"compared", !plugin_only_feature(f)}};
        }
        std::printf("%s\n", j.dump(2).c_str());
        return;
    }
    int differing = 0, compared = 0;
    for (int f = 0; f < kNumFeatures; ++f) {
        differing += r.differ[static_cast<size_t>(f)] > 0;
        compared += !plugin_only_feature(f);
    }
    std::printf("jfp parity: %llu jobs with logged features; %d of %d features always agree\n",
                static_cast<unsigned long long>(r.jobs), compared - differing, compared);
    for (int f = 0; f < kNumFeatures; ++f) {
        size_t i = static_cast<size_t>(f);
        if (r.differ[i] == 0) continue;
        std::printf("  %-26s differs for %llu of %llu jobs (%s)\n", feature_names()[i],
                    static_cast<unsigned long long>(r.differ[i]), static_cast<unsigned long long>(r.jobs),
                    r.example[i].c_str());
    }
}

}  // namespace jfp
