#include "bench/hotpath_stages.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "model/script/ignored_directives.h"
#include "model/script/module_lines.h"
#include "model/script/script_mentions.h"
#include "model/script/script_traits.h"

namespace hotpath {

namespace {

void row(const char *what, const Stats &s) {
    std::printf("  %-40s %9.2f %9.2f %9.2f\n", what, s.p50 / 1000, s.p99 / 1000, s.p999 / 1000);
}

// The scripts without their module lines: what the module check adds to a job that loads no module.
std::vector<std::string> without_module_lines(const std::vector<JobSpec> &specs) {
    std::vector<std::string> out(specs.size());
    for (size_t k = 0; k < specs.size(); ++k) {
        std::string &t = out[k];
        const std::string &src = specs[k].script;
        for (size_t pos = 0; pos < src.size();) {
            size_t nl = src.find('\n', pos);
            size_t end = nl == std::string::npos ? src.size() : nl + 1;
            if (src.compare(pos, 7, "module ") != 0) t.append(src, pos, end - pos);
            pos = end;
        }
    }
    return out;
}

}  // namespace

StageTimes time_stages(const Workload &w, const jfp::ModelBundle &bundle, Evictor &evict, size_t calls, bool profile) {
    const std::vector<JobSpec> &specs = w.specs;
    const jfp::HistorySnapshot &snap = w.snap;
    auto stage = [&](const std::function<void(const JobSpec &)> &f, bool new_thread = false, bool cold = false) {
        const size_t n = profile ? 1 : cold ? std::max<size_t>(200, calls / 25) : calls;
        std::vector<double> lat(n);
        for (size_t i = 0; i < n; ++i) {
            if (cold) evict();
            auto one = [&] {
                double t0 = now_ns();
                f(specs[i % specs.size()]);
                lat[i] = now_ns() - t0;
            };
            if (new_thread) std::thread(one).join();
            else one();
        }
        return stats(lat);
    };
    StageTimes t;
    volatile double sink = 0;
    t.scan = stage([&](const JobSpec &s) { sink = sink + jfp::scan_script(s.script).lines; });
    // The module check (modules_index set) on the same scripts without their module lines: what it adds to
    // a job that loads no module (issue 37's goal, <= 0.5 us). The submit path reads a script's bytes once
    // for both line scans (find_script_mentions), a pass every job with a script pays for the ignored-
    // directive check; what the module check adds is its own scan given that pass. Both are timed: the pass
    // with the directive scan, and the module scan after it. With module lines, the whole scan as it is.
    const std::vector<std::string> no_modules = without_module_lines(specs);
    size_t next = 0;
    auto script_pass = [&](const JobSpec &) {
        const std::string &s = no_modules[next++ % no_modules.size()];
        sink = sink + static_cast<double>(jfp::find_ignored_directives(s, jfp::find_script_mentions(s)).ignored.size());
    };
    t.script_pass = stage(script_pass);
    std::vector<jfp::ScriptMentions> passes;
    for (const std::string &s : no_modules) passes.push_back(jfp::find_script_mentions(s));
    next = 0;
    t.modules_none = stage([&](const JobSpec &) {
        const size_t k = next++ % no_modules.size();
        sink = sink + static_cast<double>(jfp::find_module_loads(no_modules[k], passes[k]).loads.size());
    });
    t.modules = stage([&](const JobSpec &s) { sink = sink + static_cast<double>(jfp::find_module_loads(s.script).loads.size()); });
    // Always with the script scanned (build_features' default), which job_submit skips for a model that
    // reads no script feature: the cold parts below scan as job_submit does.
    auto features = [&](const JobSpec &s) {
        jfp::JobRequest req = jfp::resolve_request(request_of(s), s.user, w.defaults, &snap);
        jfp::FeatureVector x;
        jfp::build_features(req, snap.index.lookup(req), x);
        sink = sink + x[0];
    };
    t.features = stage(features);
    t.features_new = stage(features, true);
    t.score = stage([&](const JobSpec &s) { sink = sink + bundle.score(s.x).p_fail; });
    // What archiving adds at least: one copy of the script and of the environment (sbatch sends ~2 KB).
    t.copy = stage([&](const JobSpec &s) {
        std::string a(s.script), e;
        for (const char *p : w.env_ptrs) {
            e.append(p);
            e.push_back('\0');
        }
        sink = sink + static_cast<double>(a.size() + e.size());
    });
    t.score_new = stage([&](const JobSpec &s) { sink = sink + bundle.score(s.x).p_fail; }, true);
    // The same stages with cold caches: which of them the in-slurmctld cost is.
    next = 0;
    t.script_pass_cold = stage(script_pass, false, true);
    // The features stage in its parts, each on the requests the part before made (the script scanned only
    // when the model reads it, as job_submit does).
    std::vector<jfp::JobRequest> reqs;
    for (auto &s : specs) reqs.push_back(jfp::resolve_request(request_of(s), s.user, w.defaults, &snap));
    std::vector<jfp::HistoryView> views;
    for (auto &r : reqs) views.push_back(snap.index.lookup(r));
    const jfp::ScriptScan scan_as_submit = bundle.uses_script_features() ? jfp::ScriptScan::Now : jfp::ScriptScan::Later;
    t.resolve_cold = stage([&](const JobSpec &s) {
        sink = sink + static_cast<double>(jfp::resolve_request(request_of(s), s.user, w.defaults, &snap).name.size());
    }, false, true);
    size_t part = 0;
    t.identity_cold = stage([&](const JobSpec &) {
        sink = sink + static_cast<double>(jfp::name_identity(reqs[part++ % reqs.size()].name).name.size());
    }, false, true);
    part = 0;
    t.lookup_cold = stage([&](const JobSpec &) { sink = sink + (snap.index.lookup(reqs[part++ % reqs.size()]).user ? 1.0 : 0.0); },
                          false, true);
    part = 0;
    t.build_cold = stage([&](const JobSpec &) {
        const size_t k = part++ % reqs.size();
        jfp::FeatureVector x;
        jfp::build_features(reqs[k], views[k], x, scan_as_submit);
        sink = sink + x[0];
    }, false, true);
    t.failure_cold = stage([&](const JobSpec &s) { sink = sink + bundle.failure_model().predict_binary(s.x.data()); }, false, true);
    return t;
}

void print_stages(const StageTimes &t, size_t evict_mib) {
    const std::pair<const char *, const Stats *> warm[] = {
        {"  script scan (first 16 KiB)", &t.scan},
        {"  script pass + ignored #SBATCH, no module lines", &t.script_pass},
        {"  module lines after the pass, scripts without any", &t.modules_none},
        {"  module lines, scripts with them", &t.modules},
        {"  resolve + history lookup + features", &t.features},
        {"  same, new thread per call", &t.features_new},
        {"  all the bundle's trees (failure + class)", &t.score},
        {"  same, new thread per call", &t.score_new},
        {"  copy of the script + environment", &t.copy}};
    const std::pair<const char *, const Stats *> cold[] = {
        {"  script pass + ignored #SBATCH, cold", &t.script_pass_cold},
        {"  resolve the request, cold", &t.resolve_cold},
        {"  the name's identity, cold", &t.identity_cold},
        {"  history lookup (the identity in it), cold", &t.lookup_cold},
        {"  features (script scan as job_submit), cold", &t.build_cold},
        {"  failure trees, cold", &t.failure_cold}};
    std::printf("  stages alone, one thread:\n");
    for (const auto &[what, s] : warm) row(what, *s);
    std::printf("  stages alone, cold caches (%zu MiB written before each), %zu calls each:\n", evict_mib, t.resolve_cold.n);
    for (const auto &[what, s] : cold) row(what, *s);
}

void add_stages(nlohmann::json &j, const StageTimes &t) {
    j["stage_script_scan_p50_us"] = t.scan.p50 / 1000;
    j["stage_features_p50_us"] = t.features.p50 / 1000;
    j["cold_stage_resolve_p50_us"] = t.resolve_cold.p50 / 1000;
    j["cold_stage_name_identity_p50_us"] = t.identity_cold.p50 / 1000;
    j["cold_stage_history_lookup_p50_us"] = t.lookup_cold.p50 / 1000;
    j["cold_stage_features_p50_us"] = t.build_cold.p50 / 1000;
    j["cold_stage_failure_trees_p50_us"] = t.failure_cold.p50 / 1000;
    j["cold_stage_script_pass_p50_us"] = t.script_pass_cold.p50 / 1000;
    j["module_scan_no_module_lines_p50_us"] = t.modules_none.p50 / 1000;
    j["module_scan_p50_us"] = t.modules.p50 / 1000;
    j["script_pass_with_directives_p50_us"] = t.script_pass.p50 / 1000;
    j["stage_copy_script_env_p50_us"] = t.copy.p50 / 1000;
}

}  // namespace hotpath
