// Benchmark: the plugin's submit hot path against a bare tree walk over the same model, measured in the
// same run (ratios, not absolute times: these machines are shared and noisy).
//
//   hot path   job_submit() of the built job_submit_jfp.so, dlopen'ed next to libslurmfull as slurmctld
//              does, in annotate mode: job_desc -> resolve -> features (script scan, history lookups) ->
//              score -> policy -> annotation and token (xstrdup) -> feature-log queue
//   reference  TreeEnsemble::predict_binary on the same jobs' precomputed feature vectors
//   record     XGBoost's own single-row C API (XGBoosterPredictFromDense, one proxy per thread)
//
// Two threading modes: a new thread per call (slurmctld 22.05 runs every RPC on a new thread) and a
// warm pool (23.02+). Prints a table and one JSON object on its last line.
#include <dlfcn.h>
#include <pthread.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <unistd.h>
#include <xgboost/c_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/hotpath_site.h"
#include "bench/hotpath_stages.h"
#include "model/archive/script_archive.h"
#include "model/scoring/model_bundle.h"

extern "C" {
char *slurm_xstrdup(const char *);
void slurm_xfree(void **);
int slurm_get_log_level(void);
}

// slurmctld logs at SlurmctldDebug, info unless the admin asks for more. Before log_init Slurm reports its
// highest level (LOG_LEVEL_END), so the plugin would take every call for a debug one (the class trees
// walked, the debug line formatted): the benchmark starts Slurm's log as slurmctld does. log_options_t
// is src/common/log.h's, not in Slurm's public headers (22.05: three levels and three flags; 23.02+ adds
// logfile_fmt), checked on 22.05.8, 24.11.5 and 26.05.5; the level read back catches a wrong layout.
struct SlurmLogOptions {
    int stderr_level, syslog_level, logfile_level;  // log_level_t
    bool prefix_level, buffered, raw;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
    int logfile_fmt;  // LOG_FILE_FMT_TIMESTAMP
#endif
};
extern "C" int slurm_log_init(char *argv0, SlurmLogOptions opts, int facility, char *logfile);
constexpr int kSlurmLogLevelInfo = 3;  // LOG_LEVEL_INFO

namespace {

using init_fn = int (*)();
using submit_fn = int (*)(job_desc_msg_t *, uint32_t, char **);
using hotpath::JobSpec;
using hotpath::Stats;
using hotpath::now_ns;
using hotpath::stats;

}  // namespace

int main(int argc, char **argv) {
    bool quick = false, profile = false;
    size_t calls = 100000;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) quick = true;
        else if (!std::strcmp(argv[i], "--profile-hot")) profile = true;  // only job_submit() in the pool: for perf
        else if (!std::strcmp(argv[i], "--calls") && i + 1 < argc) calls = std::strtoul(argv[++i], nullptr, 10);
    }
    if (quick && calls == 100000) calls = 5000;
    const char *builddir = std::getenv("JFP_BUILDDIR");
    std::string so = std::string(builddir ? builddir : ".") + "/plugin/.libs/job_submit_jfp.so";

    const hotpath::Site site = hotpath::build_site(quick);
    const size_t kSpecs = 2000;
    hotpath::Workload work = hotpath::make_workload(site, kSpecs);
    const std::vector<JobSpec> &specs = work.specs;
    auto bundle = jfp::ModelBundle::load_file(site.model);
    hotpath::Evictor evict;
    // ---- where the time goes: each stage alone, one thread, same jobs (for docs/performance.md)
    const hotpath::StageTimes st = hotpath::time_stages(work, bundle, evict, calls, profile);

    // ---- the plugin, as slurmctld loads it, its log at info
    {
        SlurmLogOptions lo{};
        lo.stderr_level = kSlurmLogLevelInfo;
        lo.prefix_level = true;
        char argv0[] = "jfp_bench_hotpath";
        slurm_log_init(argv0, lo, 3 << 3 /* LOG_DAEMON */, nullptr);
        if (slurm_get_log_level() != kSlurmLogLevelInfo) {
            std::fprintf(stderr, "bench: Slurm's log level reads %d after log_init at info (%d): log_options_t is not laid out as bench/hotpath.cc assumes for Slurm %d.%d\n",
                         slurm_get_log_level(), kSlurmLogLevelInfo, SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER), SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER));
            return 1;
        }
    }
    void *h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        std::fprintf(stderr, "bench: dlopen %s: %s\n", so.c_str(), dlerror());
        return 1;
    }
    auto init = reinterpret_cast<init_fn>(dlsym(h, "init"));
    auto fini = reinterpret_cast<init_fn>(dlsym(h, "fini"));
    auto submit = reinterpret_cast<submit_fn>(dlsym(h, "job_submit"));
    init();
    // The history loads in the background: wait until scores match what the bench computed with it.
    // As slurmctld hands it over: every string unpacked from the RPC into its own xmalloc'ed buffer (so
    // the calling thread has used malloc before job_submit, as slurmctld's RPC thread has).
    auto dup = [](const std::string &v) { return v.empty() ? nullptr : slurm_xstrdup(v.c_str()); };
    auto make_desc = [&](const JobSpec &s, job_desc_msg_t &d) {
        slurm_init_job_desc_msg(&d);
        d.user_id = s.uid;
        d.name = dup(s.name);
        d.partition = dup(s.partition);
        d.account = dup(s.account);
        d.script = dup(s.script);
        d.min_cpus = s.cpus;
        d.min_nodes = s.nodes;
        d.time_limit = s.time_min;
        d.pn_min_memory = s.mem;
        d.comment = dup(s.comment);
        d.environment = work.env_ptrs.data();  // the bench's own: never freed by release()
        d.env_size = static_cast<uint32_t>(work.env_ptrs.size());
    };
    auto release = [](job_desc_msg_t &d) {
        for (char **p : {&d.name, &d.partition, &d.account, &d.script, &d.comment, &d.admin_comment})
            slurm_xfree(reinterpret_cast<void **>(p));
    };
    size_t agree = 0;
    for (int attempt = 0; attempt < 300; ++attempt) {
        agree = 0;
        for (size_t i = 0; i < 50; ++i) {
            job_desc_msg_t d;
            make_desc(specs[i], d);
            char *err = nullptr;
            submit(&d, 0, &err);
            std::string c = d.comment ? d.comment : "";
            auto pos = c.rfind("jfp:p=");
            char want[16];
            std::snprintf(want, sizeof want, "%.3f", static_cast<double>(bundle.failure_model().predict_binary(specs[i].x.data())));
            if (pos != std::string::npos && c.compare(pos + 6, std::strlen(want), want) == 0) ++agree;
            release(d);
            slurm_xfree(reinterpret_cast<void **>(&err));
        }
        if (agree >= 48) break;
        usleep(100000);
    }
    std::fprintf(stderr, "bench: %zu/50 warm-up scores equal the bench's own feature computation\n", agree);
    size_t at_or_above = 0;
    std::vector<bool> spec_above;
    for (const auto &s : specs) {
        spec_above.push_back(bundle.score_failure(s.x).p_fail >= bundle.threshold());
        at_or_above += spec_above.back();
    }
    const double above_share = static_cast<double>(at_or_above) / static_cast<double>(specs.size());

    // ---- measurement helpers
    using Kind = std::function<void(size_t, double &)>;
    auto run_block = [&](bool new_thread, const Kind &one, size_t begin, size_t end, std::vector<double> &lat) {
        if (new_thread) {
            for (size_t i = begin; i < end; ++i) {
                std::thread t([&, i] {
                    pthread_setname_np(pthread_self(), "submit");  // for perf --comm; outside the timing
                    one(i, lat[i]);
                });
                t.join();
            }
        } else {
            unsigned nthreads = std::max(2u, std::thread::hardware_concurrency());
            std::vector<std::thread> pool;
            std::atomic<size_t> next{begin};
            for (unsigned t = 0; t < nthreads; ++t)
                pool.emplace_back([&] {
                    pthread_setname_np(pthread_self(), "submit");
                    for (size_t i; (i = next.fetch_add(1)) < end;) one(i, lat[i]);
                });
            for (auto &t : pool) t.join();
        }
    };
    auto run_mode = [&](bool new_thread, const Kind &one) {
        std::vector<double> lat(calls);
        run_block(new_thread, one, 0, calls, lat);
        return stats(lat);
    };
    // The kinds whose ratios are reported run in alternating blocks of 1,000 calls, so that the shared
    // machine's noise, which drifts over seconds, falls on them alike; the pause between blocks lets the
    // plugin's background threads finish the previous block's work before the next kind is timed.
    // Each block starts with 10 untimed calls: the first call after the pause meets cold caches, once per
    // 1,000, which is exactly the p99.9.
    auto run_interleaved = [&](bool new_thread, const std::vector<const Kind *> &kinds) {
        std::vector<std::vector<double>> lat(kinds.size(), std::vector<double>(calls));
        std::vector<double> untimed(calls);
        for (size_t b = 0; b < calls; b += 1000)
            for (size_t k = 0; k < kinds.size(); ++k) {
                run_block(new_thread, *kinds[k], b, std::min(calls, b + 10), untimed);
                run_block(new_thread, *kinds[k], b, std::min(calls, b + 1000), lat[k]);
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        return lat;
    };
    auto hot = [&](size_t i, double &out) {
        job_desc_msg_t d;
        make_desc(specs[i % kSpecs], d);
        char *err = nullptr;
        double t0 = now_ns();
        submit(&d, specs[i % kSpecs].uid, &err);
        out = now_ns() - t0;
        release(d);
        slurm_xfree(reinterpret_cast<void **>(&err));
    };
    const jfp::TreeEnsemble &ens = bundle.failure_model();
    volatile float sink = 0;
    // The reference: a bare walk over every tree of the bundle (the failure model and the failure-class
    // model, which the plugin walks for a job at or above its threshold), then the failure model alone.
    auto walk = [&](size_t i, double &out) {
        double t0 = now_ns();
        jfp::Score sc = bundle.score(specs[i % kSpecs].x);
        out = now_ns() - t0;
        sink = sink + sc.p_fail;
    };
    // What job_submit walks for the job: the failure trees, and the class trees only at or above the
    // threshold (the class is said only there). The reference for jfp's own cost.
    auto walk_needed = [&](size_t i, double &out) {
        double t0 = now_ns();
        const jfp::FeatureVector &x = specs[i % kSpecs].x;
        jfp::Score sc = bundle.score_failure(x);
        if (sc.p_fail >= bundle.threshold()) bundle.classify(x, sc);
        out = now_ns() - t0;
        sink = sink + sc.p_fail + static_cast<float>(sc.top_class);
    };
    auto walk_failure = [&](size_t i, double &out) {
        double t0 = now_ns();
        float p = ens.predict_binary(specs[i % kSpecs].x.data());
        out = now_ns() - t0;
        sink = sink + p;
    };

    // XGBoost's own single-row path, for the record: one proxy per thread, nthread=1.
    BoosterHandle booster = nullptr;
    {
        std::string json = nlohmann::json::parse(std::ifstream(site.model))["failure_model"].dump();
        XGBoosterCreate(nullptr, 0, &booster);
        XGBoosterLoadModelFromBuffer(booster, json.data(), json.size());
        XGBoosterSetParam(booster, "nthread", "1");
    }
    const char *xgb_conf = R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false, "cache_id": 0, "missing": NaN})";
    auto xgb = [&](size_t i, double &out) {
        thread_local DMatrixHandle proxy = nullptr;
        if (!proxy) XGProxyDMatrixCreate(&proxy);
        const float *row = specs[i % kSpecs].x.data();
        std::string iface = R"({"data": [)" + std::to_string(reinterpret_cast<uintptr_t>(row)) +
                            R"(, true], "shape": [1, )" + std::to_string(jfp::kNumFeatures) +
                            R"(], "typestr": "<f4", "version": 3})";
        const bst_ulong *shape = nullptr;
        bst_ulong dim = 0;
        const float *res = nullptr;
        double t0 = now_ns();
        XGBoosterPredictFromDense(booster, iface.c_str(), xgb_conf, proxy, &shape, &dim, &res);
        out = now_ns() - t0;
        sink = sink + (res ? res[0] : 0);
    };

    // Alternate the kinds, so that noise on the shared machine hits them alike.
    Stats hot_new, walk_new, hot_pool, walk_pool, xgb_pool, xgb_new;
    if (profile) {
        hot_pool = run_mode(std::getenv("JFP_BENCH_NEW_THREAD") != nullptr, hot);
        std::printf("job_submit() p50 %.2f us\n", hot_pool.p50 / 1000);
        fini();
        std::string rm_site = "rm -rf '" + site.dir + "'";
        (void)std::system(rm_site.c_str());
        return 0;
    }
    Stats walkf_new, walkn_new;
    const Kind hot_kind = hot, walk_kind = walk, walkf_kind = walk_failure, walkn_kind = walk_needed;
    auto fresh = run_interleaved(true, {&hot_kind, &walk_kind, &walkf_kind, &walkn_kind});
    hot_new = stats(fresh[0]);
    walk_new = stats(fresh[1]);
    walkf_new = stats(fresh[2]);
    walkn_new = stats(fresh[3]);
    // The same calls split by the job's side of the threshold: below it job_submit walks the failure trees
    // alone, at or above it the class trees too.
    auto side = [&](const std::vector<double> &lat, bool above) {
        std::vector<double> v;
        for (size_t i = 0; i < lat.size(); ++i)
            if (spec_above[i % kSpecs] == above) v.push_back(lat[i]);
        return stats(std::move(v));
    };
    const Stats hot_below = side(fresh[0], false), walk_below = side(fresh[1], false);
    Stats hot_above = side(fresh[0], true), walk_above = side(fresh[1], true);
    const Stats walkf_below = side(fresh[2], false);
    auto warm = run_interleaved(false, {&hot_kind, &walk_kind});
    hot_pool = stats(warm[0]);
    walk_pool = stats(warm[1]);
    const Kind cold_hot = [&](size_t i, double &out) { evict(); hot(i, out); };
    const Kind cold_walk = [&](size_t i, double &out) { evict(); walk(i, out); };
    const Kind cold_walkn = [&](size_t i, double &out) { evict(); walk_needed(i, out); };
    const size_t warm_calls = calls;
    calls = std::max<size_t>(quick ? 300 : 1000, calls / 10);  // 64 MiB written before each: about 5 ms
    auto cold = run_interleaved(true, {&cold_hot, &cold_walk, &cold_walkn});
    const size_t cold_calls = calls;
    calls = warm_calls;
    const Stats hot_cold = stats(cold[0]), walk_cold = stats(cold[1]), walkn_cold = stats(cold[2]);
    size_t saved = calls;
    calls = std::min<size_t>(calls, 20000);
    xgb_pool = run_mode(false, xgb);
    xgb_new = run_mode(true, xgb);
    calls = saved;

    // ---- the same submissions with the script archive on (environment kept): what the submit path pays
    std::string archive = site.dir + "/scripts.db";
    hotpath::write_jfp_conf(site, "script_archive = " + archive + "\nscript_archive_env = yes\n");
    auto archived = [&]() -> int64_t {
        try {
            jfp::ScriptArchive a(archive, jfp::ScriptArchive::Access::ReadOnly);
            return static_cast<int64_t>(a.stats().submissions);
        } catch (const std::exception &) {
            return 0;
        }
    };
    for (int attempt = 0; attempt < 100 && archived() == 0; ++attempt) {
        double ignored;
        hot(0, ignored);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (archived() == 0) {
        std::fprintf(stderr, "bench: the plugin did not start archiving after jfp.conf set script_archive\n");
        return 1;
    }
    int64_t archived_before = archived();
    Stats hot_new_arch = run_mode(true, hot);
    Stats hot_pool_arch = run_mode(false, hot);
    // Off again, measured after: the reference for the archive's cost brackets it in time.
    hotpath::write_jfp_conf(site);
    std::this_thread::sleep_for(std::chrono::seconds(3));  // past a reload interval; then the writer is closed
    int64_t archived_total = archived() - archived_before;
    Stats hot_new_off = run_mode(true, hot);

    // ---- a job at or above its threshold, when the mix has too few: a model whose threshold sits high (its
    // precision target met there) flags none of these jobs, and the side the user is told about would go
    // unmeasured. Then the same jobs run with jfp.conf's threshold at 0, so that every one is at or above it
    // (the class trees walked, the class in the annotation), interleaved with the bare walk of all trees.
    bool forced_above = false;
    if (at_or_above < specs.size() / 10) {
        auto flagged = [&] {  // the annotation names a class only at or above the threshold
            job_desc_msg_t d;
            make_desc(specs[0], d);
            char *err = nullptr;
            submit(&d, specs[0].uid, &err);
            std::string c = d.comment ? d.comment : "";
            release(d);
            slurm_xfree(reinterpret_cast<void **>(&err));
            return c.find(",class=") != std::string::npos;
        };
        hotpath::write_jfp_conf(site, "threshold = 0.0\n");
        for (int attempt = 0; attempt < 100 && !flagged(); ++attempt) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (!flagged()) {
            std::fprintf(stderr, "bench: jobs were not at the threshold after jfp.conf set it to 0\n");
            return 1;
        }
        const size_t saved_calls = calls;
        calls = std::max<size_t>(1000, calls / 2);
        auto f = run_interleaved(true, {&hot_kind, &walk_kind});
        calls = saved_calls;
        hot_above = stats(f[0]);
        walk_above = stats(f[1]);
        forced_above = true;
        hotpath::write_jfp_conf(site);
        std::this_thread::sleep_for(std::chrono::seconds(3));
    }
    fini();

    size_t class_trees = bundle.class_model() ? bundle.class_model()->num_trees() : 0;
    std::printf("submit hot path vs a bare walk of the bundle's trees (%zu failure + %zu class), %zu calls each, microseconds;\n"
                "%.0f%% of the jobs at or above the threshold (%.4f), where the class trees are walked too\n",
                ens.num_trees(), class_trees, calls, 100 * above_share, bundle.threshold());
    std::printf("  %-40s %9s %9s %9s\n", "", "p50", "p99", "p99.9");
    auto row = [](const char *what, const Stats &s) {
        std::printf("  %-40s %9.2f %9.2f %9.2f\n", what, s.p50 / 1000, s.p99 / 1000, s.p999 / 1000);
    };
    row("job_submit(), new thread per call", hot_new);
    row("tree walk (all trees), new thread per call", walk_new);
    row("tree walk (failure trees), new thread", walkf_new);
    row("tree walk (what job_submit walks), new", walkn_new);
    std::printf("  by the job's side of the threshold, new thread:\n");
    row("  job_submit(), jobs below it", hot_below);
    row("  tree walk (all trees), same jobs", walk_below);
    row("  tree walk (failure trees), same jobs", walkf_below);
    if (forced_above) std::printf("  (at or above it: none of the mix was; the same jobs with jfp.conf's threshold at 0)\n");
    row("  job_submit(), jobs at or above it", hot_above);
    row("  tree walk (all trees), same jobs", walk_above);
    row("job_submit(), warm pool", hot_pool);
    row("tree walk (all trees), warm pool", walk_pool);
    std::printf("  cold caches (%zu MiB written before each call), new thread, %zu calls each:\n", evict.mib(), cold_calls);
    row("  job_submit(), cold", hot_cold);
    row("  tree walk (all trees), cold", walk_cold);
    row("  tree walk (what job_submit walks), cold", walkn_cold);
    row("XGBoost PredictFromDense, warm pool", xgb_pool);
    row("XGBoost PredictFromDense, new thread", xgb_new);
    hotpath::print_stages(st, evict.mib());
    Stats off_ref = hot_new.p50 <= hot_new_off.p50 ? hot_new : hot_new_off;  // the faster of the two off runs
    std::printf("  script archive on (environment kept), %lld of %zu submissions archived:\n",
                static_cast<long long>(archived_total), 2 * calls);
    row("  job_submit(), archive off (before, after)", hot_new);
    row("  ", hot_new_off);
    row("  job_submit(), archive on, new thread", hot_new_arch);
    row("  job_submit(), archive on, warm pool", hot_pool_arch);
    auto side_ratio = [](double a, double b) { return b > 0 ? nlohmann::json(a / b) : nlohmann::json(nullptr); };
    nlohmann::json j = {
        {"hot_path_p50_ratio", hot_new.p50 / walk_new.p50},
        {"hot_path_p99_ratio", hot_new.p99 / walk_new.p99},
        {"hot_path_p999_ratio", hot_new.p999 / walk_new.p999},
        {"hot_path_p50_ratio_vs_failure_trees", hot_new.p50 / walkf_new.p50},
        {"hot_path_p50_ratio_vs_walked_trees", hot_new.p50 / walkn_new.p50},
        {"hot_path_p99_ratio_vs_walked_trees", hot_new.p99 / walkn_new.p99},
        {"hot_path_jfp_own_p50_us", (hot_new.p50 - walkn_new.p50) / 1000},
        // The same per side: on a mix near half and half, the two p50s above can fall in different modes.
        {"below_threshold_jfp_own_p50_us", hot_below.n ? nlohmann::json((hot_below.p50 - walkf_below.p50) / 1000) : nlohmann::json(nullptr)},
        {"above_threshold_jfp_own_p50_us", hot_above.n ? nlohmann::json((hot_above.p50 - walk_above.p50) / 1000) : nlohmann::json(nullptr)},
        {"jobs_at_or_above_threshold", above_share},
        {"above_threshold_measured_with_threshold_0", forced_above},
        // null when no job fell on that side (another model, --quick): bench/run says "n/a"
        {"below_threshold_p50_ratio", side_ratio(hot_below.p50, walk_below.p50)},
        {"below_threshold_p99_ratio", side_ratio(hot_below.p99, walk_below.p99)},
        {"below_threshold_p50_ratio_vs_failure_trees", side_ratio(hot_below.p50, walkf_below.p50)},
        {"above_threshold_p50_ratio", side_ratio(hot_above.p50, walk_above.p50)},
        {"above_threshold_p99_ratio", side_ratio(hot_above.p99, walk_above.p99)},
        {"hot_path_p99_ratio_vs_failure_trees", hot_new.p99 / walkf_new.p99},
        {"hot_path_pool_p50_ratio", hot_pool.p50 / walk_pool.p50},
        {"hot_path_pool_p99_ratio", hot_pool.p99 / walk_pool.p99},
        {"xgboost_pool_p50_ratio", xgb_pool.p50 / walk_pool.p50},
        {"hot_path_new_thread_us", {{"p50", hot_new.p50 / 1000}, {"p99", hot_new.p99 / 1000}, {"p999", hot_new.p999 / 1000}}},
        {"tree_walk_new_thread_us", {{"p50", walk_new.p50 / 1000}, {"p99", walk_new.p99 / 1000}, {"p999", walk_new.p999 / 1000}}},
        {"cold_hot_path_us", {{"p50", hot_cold.p50 / 1000}, {"p99", hot_cold.p99 / 1000}}},
        {"cold_tree_walk_us", {{"p50", walk_cold.p50 / 1000}, {"p99", walk_cold.p99 / 1000}}},
        {"cold_hot_path_p50_ratio", hot_cold.p50 / walk_cold.p50},
        {"cold_jfp_own_p50_us", (hot_cold.p50 - walkn_cold.p50) / 1000},
        {"cold_evict_mib", evict.mib()},
        {"archive_p50_ratio", hot_new_arch.p50 / off_ref.p50},
        {"archive_p99_ratio", hot_new_arch.p99 / off_ref.p99},
        {"archive_added_p50_us", (hot_new_arch.p50 - off_ref.p50) / 1000},
        {"archive_pool_p50_ratio", hot_pool_arch.p50 / hot_pool.p50},
        {"archive_archived", archived_total},
        {"archive_submissions", 2 * calls},
        {"trees", ens.num_trees()},
        {"class_trees", class_trees},
        {"calls", calls}};
    hotpath::add_stages(j, st);
    std::printf("%s\n", j.dump().c_str());
    std::string rm = "rm -rf '" + site.dir + "'";
    (void)std::system(rm.c_str());
    return 0;
}
