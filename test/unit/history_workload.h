// A random stream of jobs for the history tests: submissions, jobs ending in order and late, re-ingests.
#pragma once

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "model/store/history_store.h"

namespace jfp::test {

inline constexpr Outcome kEnded[] = {Outcome::Completed, Outcome::Completed, Outcome::Completed, Outcome::Failed,
                          Outcome::Timeout,   Outcome::OutOfMemory, Outcome::Cancelled};

struct Workload {
    std::mt19937_64 rng;
    int64_t clock = 1'700'000'000;
    int next_id = 1;
    std::vector<JobRecord> running, ended;

    explicit Workload(uint64_t seed) : rng(seed) {}
    // n jobs that ended a minute apart.
    std::vector<JobRecord> ended_series(int n) {
        std::vector<JobRecord> out;
        for (int i = 0; i < n; ++i) {
            clock += 60;
            JobRecord j = submit();
            finish(j, clock);
            out.push_back(j);
        }
        return out;
    }
    int pick(int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }

    JobRecord submit() {
        JobRecord j;
        j.cluster = "c";
        j.job_key = std::to_string(next_id++);
        j.job_id = j.job_key;
        int u = pick(5);
        j.user = "u" + std::to_string(u);
        if (pick(3)) j.uid = 1000 + u;
        j.name = std::string("app") + std::to_string(pick(4)) + (pick(2) ? "_" + std::to_string(pick(30)) : "");
        j.partition = pick(2) ? "batch" : "gpu";
        if (pick(4)) j.account = "acct" + std::to_string(pick(3));
        if (pick(4)) j.qos = pick(2) ? "normal" : "high";
        j.submit = clock - 60 * pick(3);  // coarse: many submissions share a second
        j.req_mem_mb = 1000.0 * (1 + pick(8));
        j.timelimit_min = 10.0 * (1 + pick(12));
        if (pick(2)) j.jfp_token = "t" + j.job_key;
        j.state = "RUNNING";
        return j;
    }

    void finish(JobRecord &j, int64_t end) {
        j.outcome = kEnded[pick(7)];
        j.state = j.outcome == Outcome::Completed ? "COMPLETED" : j.outcome == Outcome::Cancelled ? "CANCELLED" : "FAILED";
        j.start = std::min(j.submit + 1, end);
        j.end = end;
        j.elapsed_s = static_cast<double>(end - j.start);
        if (pick(2)) j.max_rss_mb = 100.0 * (1 + pick(50));
    }
};

inline void put(HistoryStore &store, const std::vector<JobRecord> &jobs, const std::vector<StepInfo> &steps = {}) {
    auto id = store.begin_ingest("test");
    for (const auto &j : jobs) store.put_job(j);
    for (const auto &s : steps) store.put_step(s);
    store.finish_ingest(id, SacctReadReport());
}

}  // namespace jfp::test
