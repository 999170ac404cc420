// How the plugin's history scales: a store of N synthetic jobs is ingested (in a child process, so its
// peak RSS is its own), loaded whole as the plugin's loader does, then kept current after an ingest of
// 1,000 jobs by applying only the changes; the reference in the same run is a full reload of the same
// store. Also: memory the loaded history adds to the process, and the history lookup + feature build
// of the submit path with this history against one of 10,000 jobs (latency independent of size).
//
//   jfp_bench_history [--quick] [--jobs N ...]   (default 1M and 10M; --quick 50,000)
//   jfp_bench_history --grow-keys K ...          only the index's growth at K keys
//
// Last line: one JSON object.
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "model/sacct/sacct_reader.h"
#include "model/snapshot/history_snapshot.h"
#include "model/store/history_store.h"
#include "model/snapshot/snapshot_file.h"
#include "model/snapshot/snapshot_resume.h"
#include "model/scoring/features.h"
#include "tools/simulate/synth.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double rss_mib() {
    long pages = 0, resident = 0;
    std::FILE *f = std::fopen("/proc/self/statm", "r");
    if (f) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(f);
    }
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

struct IngestResult {
    double seconds = 0, peak_mib = 0;
};

// Synthesises `jobs` jobs and ingests them into db in a child process.
IngestResult build_store(const std::string &dir, const std::string &db, uint64_t jobs) {
    std::string txt = dir + "/export.txt";
    {
        jfp::SynthOptions o;
        o.jobs = jobs;
        o.seed = 7;
        // synth covers jobs/4000 days from its start: end a month ago (ingest refuses ends after it began).
        char day[32];
        std::time_t first = std::time(nullptr) - static_cast<std::time_t>(jobs / 4000 + 30) * 86400;
        std::strftime(day, sizeof day, "%Y-%m-%d", std::gmtime(&first));
        o.start = day;
        std::FILE *out = std::fopen(txt.c_str(), "wb");
        if (!out) throw std::runtime_error("cannot write " + txt);
        jfp::generate_workload(o, out);
        std::fclose(out);
    }
    auto t0 = Clock::now();
    pid_t pid = fork();
    if (pid == 0) {
        try {
            jfp::HistoryStore store(db, jfp::HistoryStore::Access::ReadWrite);
            jfp::ingest_export_file(store, txt);
            _exit(0);
        } catch (const std::exception &e) {
            std::fprintf(stderr, "ingest: %s\n", e.what());
            _exit(1);
        }
    }
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("ingest failed");
    IngestResult r;
    r.seconds = seconds_since(t0);
    r.peak_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;
    std::remove(txt.c_str());
    return r;
}

// 1,000 jobs that ended after everything in the store, as the next `jfp ingest --follow` brings.
void ingest_new_jobs(const std::string &db, int64_t after, int n, std::vector<jfp::JobRecord> &sample) {
    jfp::HistoryStore store(db, jfp::HistoryStore::Access::ReadWrite);
    std::mt19937_64 rng(3);
    auto id = store.begin_ingest("bench");
    for (int i = 0; i < n; ++i) {
        jfp::JobRecord j = sample[rng() % sample.size()];
        j.job_key = j.job_id = "9" + std::to_string(100000000 + i);
        j.array_job.clear();
        j.submit = after + i;
        j.start = after + i + 1;
        j.end = after + i + 60 + static_cast<int64_t>(rng() % 600);
        j.outcome = rng() % 10 ? jfp::Outcome::Completed : jfp::Outcome::Failed;
        j.state = j.outcome == jfp::Outcome::Completed ? "COMPLETED" : "FAILED";
        j.jfp_token.clear();
        store.put_job(j);
    }
    store.finish_ingest(id, jfp::SacctReadReport());
}

struct Lookup {
    double p50_ns = 0, p99_ns = 0;
};

// The submit path's use of the history: lookup + feature build (no script), per request.
Lookup time_lookups(const jfp::HistorySnapshot &snap, const std::vector<jfp::JobRecord> &sample) {
    std::vector<jfp::JobRequest> reqs;
    for (const auto &j : sample) reqs.push_back(jfp::request_from_record(j));
    std::vector<double> ns;
    jfp::FeatureVector x;
    for (int round = 0; round < 20; ++round)
        for (const auto &r : reqs) {
            auto t0 = Clock::now();
            jfp::build_features(r, snap.index.lookup(r), x);
            ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
        }
    std::sort(ns.begin(), ns.end());
    return {ns[ns.size() / 2], ns[ns.size() * 99 / 100]};
}

}  // namespace

// What the next growth of an index of `keys` keys costs under the history lock. The reference, in the
// same run: growing in place (every key rehashed while submissions wait). Now: rehashed beside them,
// then only swapped in. The table is filled to its limit, so the next new key must grow it.
struct GrowCost {
    size_t keys = 0;
    double in_place_ms = 0, rehash_ms = 0, locked_ms = 0;
};
GrowCost time_index_growth(size_t keys) {
    std::mt19937_64 rng(5);
    jfp::StatsTable full;
    full.reserve(keys);
    while ((full.size() + 1) * 4 <= full.slot_count() * 3) full[rng()].n = 1;
    GrowCost g;
    g.keys = full.size();
    uint64_t extra = rng();
    jfp::StatsTable a = full, b = full;
    auto t0 = Clock::now();
    a[extra].n = 1;
    g.in_place_ms = seconds_since(t0) * 1000;
    t0 = Clock::now();
    auto room = b.rehashed_for(b.size() + 1);
    g.rehash_ms = seconds_since(t0) * 1000;
    t0 = Clock::now();
    b.adopt(std::move(room));
    b[extra].n = 1;
    g.locked_ms = seconds_since(t0) * 1000;
    if (a.slot_count() <= full.slot_count() || b.slot_count() != a.slot_count() || !(a == b))
        throw std::runtime_error("the index growth benchmark did not grow the table as expected");
    return g;
}

int main(int argc, char **argv) {
    std::vector<uint64_t> sizes;
    bool quick = false;
    std::vector<size_t> grow_keys;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) quick = true;
        else if (!std::strcmp(argv[i], "--jobs") && i + 1 < argc) sizes.push_back(std::strtoull(argv[++i], nullptr, 10));
        else if (!std::strcmp(argv[i], "--grow-keys") && i + 1 < argc) grow_keys.push_back(std::strtoull(argv[++i], nullptr, 10));
        else {
            std::fprintf(stderr, "usage: jfp_bench_history [--quick] [--jobs N ...] [--grow-keys K ...]\n");
            return 2;
        }
    }
    if (!grow_keys.empty()) {  // only the index's growth, for tables of K keys (no store)
        for (size_t k : grow_keys) {
            GrowCost g = time_index_growth(k);
            std::printf("  %zu keys: in place %.2f ms; rehashed beside the readers %.2f ms, then under the lock %.3f ms\n",
                        g.keys, g.in_place_ms, g.rehash_ms, g.locked_ms);
        }
        return 0;
    }
    if (sizes.empty()) sizes = quick ? std::vector<uint64_t>{50000} : std::vector<uint64_t>{1000000, 10000000};
    std::sort(sizes.begin(), sizes.end());
    char tmpl[] = "/tmp/jfp-bench-history.XXXXXX";
    if (!mkdtemp(tmpl)) return 1;
    std::string dir = tmpl;
    std::string json = "{", largest;
    size_t largest_keys = 0;
    try {
        // The small reference history for lookup latency.
        std::string small_db = dir + "/small.db";
        build_store(dir, small_db, 10000);
        std::vector<jfp::JobRecord> small_sample;
        jfp::HistoryStore small_store(small_db, jfp::HistoryStore::Access::ReadOnly);
        small_store.for_each_ended_job([&](jfp::JobRecord &&j) { small_sample.push_back(std::move(j)); });
        auto small = jfp::load_history_snapshot(small_store);
        Lookup small_lookup = time_lookups(small, small_sample);

        std::printf("  %-10s %9s %9s %9s %10s %10s %11s %9s %9s\n", "jobs", "ingest s", "ingest MiB", "load s",
                    "+RSS MiB", "update ms", "reload ms", "p50 ns", "p50 ratio");
        for (uint64_t n : sizes) {
            std::string db = dir + "/h" + std::to_string(n) + ".db";
            IngestResult ing = build_store(dir, db, n);
            malloc_trim(0);
            double rss0 = rss_mib();
            auto t0 = Clock::now();
            jfp::HistoryStore store(db, jfp::HistoryStore::Access::ReadOnly);
            auto snap = jfp::load_history_snapshot(store);
            double load_s = seconds_since(t0);
            malloc_trim(0);
            double added_mib = rss_mib() - rss0;

            std::vector<jfp::JobRecord> sample;
            uint64_t k = 0, step = std::max<uint64_t>(1, snap.index.jobs_added() / 2000);
            store.for_each_ended_job([&](jfp::JobRecord &&j) {
                if (k++ % step == 0) sample.push_back(std::move(j));
            });
            Lookup lk = time_lookups(snap, sample);

            ingest_new_jobs(db, snap.latest_end + 1, 1000, sample);
            t0 = Clock::now();
            auto u = jfp::update_history_snapshot(snap, store, [](const std::function<void()> &w) { w(); });
            double update_ms = seconds_since(t0) * 1000;
            if (u.full_load_reason || u.applied != 1000)
                throw std::runtime_error("the update was not incremental: " + u.full_load_reason.value_or("applied " + std::to_string(u.applied)));
            t0 = Clock::now();
            auto full = jfp::load_history_snapshot(store);
            double reload_ms = seconds_since(t0) * 1000;
            if (!jfp::same_history(snap, full)) throw std::runtime_error("the updated history differs from a full reload");
            // The snapshot file jfp ingest keeps: written, then read back as the plugin starts from it; the
            // replay (reload_ms) is the reference.
            const std::string snap_path = jfp::snapshot_path_for(db);
            t0 = Clock::now();
            uint64_t snap_bytes = jfp::write_snapshot_file(snap_path, full, store.lineage(), store.newest_ingest_mark(), db);
            double snap_write_s = seconds_since(t0);
            t0 = Clock::now();
            jfp::ResumedHistory resumed = jfp::resume_history(store, snap_path, {0, ::geteuid()});
            double snap_load_ms = seconds_since(t0) * 1000;
            if (!resumed.ok) throw std::runtime_error("the snapshot was not used: " + resumed.why_not);
            if (!jfp::same_history(resumed.snap, full)) throw std::runtime_error("the snapshot's history differs from a replay");
            std::remove(snap_path.c_str());

            double ratio = lk.p50_ns / small_lookup.p50_ns;
            std::printf("  %-10llu %9.1f %9.0f %9.2f %10.1f %10.1f %11.0f %9.0f %9.2f\n",
                        static_cast<unsigned long long>(n), ing.seconds, ing.peak_mib, load_s, added_mib, update_ms,
                        reload_ms, lk.p50_ns, ratio);
            std::printf("  %-10s snapshot file %.1f MiB, written in %.2f s, loaded in %.0f ms: %.1fx faster than the replay (%.0f ms)\n",
                        "", static_cast<double>(snap_bytes) / (1 << 20), snap_write_s, snap_load_ms, reload_ms / snap_load_ms, reload_ms);
            std::string p = "history_" + std::to_string(n) + "_";
            char buf[640];
            std::snprintf(buf, sizeof buf,
                          "%s\"%singest_s\": %.2f, \"%singest_peak_mib\": %.0f, \"%sload_s\": %.3f, \"%srss_added_mib\": %.1f, "
                          "\"%supdate_1000_ms\": %.2f, \"%sfull_reload_ms\": %.1f, \"%slookup_p50_ns\": %.0f, "
                          "\"%slookup_p99_ns\": %.0f, \"%slookup_p50_ratio_vs_10k\": %.3f",
                          json.size() > 1 ? ", " : "", p.c_str(), ing.seconds, p.c_str(), ing.peak_mib, p.c_str(), load_s,
                          p.c_str(), added_mib, p.c_str(), update_ms, p.c_str(), reload_ms, p.c_str(), lk.p50_ns,
                          p.c_str(), lk.p99_ns, p.c_str(), ratio);
            json += buf;
            std::snprintf(buf, sizeof buf,
                          ", \"%ssnapshot_mib\": %.1f, \"%ssnapshot_write_s\": %.2f, \"%ssnapshot_load_ms\": %.0f, "
                          "\"%ssnapshot_speedup_vs_replay\": %.1f",
                          p.c_str(), static_cast<double>(snap_bytes) / (1 << 20), p.c_str(), snap_write_s, p.c_str(),
                          snap_load_ms, p.c_str(), reload_ms / snap_load_ms);
            json += buf;
            // The largest size's figures under fixed names, for bench/run's goals.
            std::snprintf(buf, sizeof buf,
                          ", \"history_jobs\": %llu, \"history_load_s\": %.3f, \"history_rss_added_mib\": %.1f, "
                          "\"history_update_1000_ms\": %.2f, \"history_lookup_p50_ratio\": %.3f, \"history_lookup_added_ns\": %.0f",
                          static_cast<unsigned long long>(n), load_s, added_mib, update_ms, ratio,
                          lk.p50_ns - small_lookup.p50_ns);
            largest = buf;
            largest_keys = snap.index.keys();
            std::remove(db.c_str());
            std::remove((db + "-wal").c_str());
            std::remove((db + "-shm").c_str());
        }
        std::printf("  (lookup + feature build p50 with 10,000 jobs: %.0f ns; the ratio is against it)\n", small_lookup.p50_ns);

        GrowCost g = time_index_growth(largest_keys);
        std::printf("\n  growing an index of %zu keys (the largest store's size, at its fill limit), under the lock:\n"
                    "    in place %.2f ms (reference); rehashed beside the readers %.2f ms, then swapped in %.3f ms\n",
                    g.keys, g.in_place_ms, g.rehash_ms, g.locked_ms);
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      ", \"history_grow_keys\": %zu, \"history_grow_in_place_ms\": %.3f, \"history_grow_rehash_ms\": %.3f, "
                      "\"history_grow_locked_ms\": %.4f",
                      g.keys, g.in_place_ms, g.rehash_ms, g.locked_ms);
        largest += buf;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "jfp_bench_history: %s\n", e.what());
        std::string cmd = "rm -rf '" + dir + "'";
        if (std::system(cmd.c_str()) != 0) {}
        return 1;
    }
    std::string cmd = "rm -rf '" + dir + "'";
    if (std::system(cmd.c_str()) != 0) {}
    std::printf("%s%s}\n", json.c_str(), largest.c_str());
    return 0;
}
