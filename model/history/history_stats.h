// What the history says about one key (a user, a user's job name, a partition...): counts, the latest
// outcomes and the largest resources seen, folded one ended job at a time in end order.
//
// Two views of the same jobs. The counts (n_fail, streak, recent) count jobs: they are what a message
// quotes ("3 of your last 10 runs failed"). The run evidence (RunEvidence) is what the model reads, and a
// user cannot manufacture it cheaply: consecutive jobs that share a run key (the tasks of one array) are one
// run, and a run that completed weighs what it used against the key's latest failure, so a burst of cheap
// runs cannot dilute a costly failure. A partition's or account's key holds its users' evidence instead
// (HistoryIndex::add_pooled): one user's jobs there count as one user.
#pragma once

#include <cstdint>

#include "model/jobs/job_record.h"

namespace jfp {

struct HistoryStats {
    uint32_t n = 0;          // ended jobs of any outcome
    uint32_t n_labeled = 0;  // COMPLETED or failed: the denominator of failure rates
    uint32_t n_fail = 0;
    uint32_t n_timeout = 0;
    uint32_t n_oom = 0;
    uint32_t n_cancel = 0;
    uint32_t streak = 0;     // failures in a row among the latest labeled jobs
    uint16_t recent = 0;     // bit i set: the i-th latest labeled job failed
    uint8_t recent_n = 0;    // valid bits in recent (at most kRecent)
    uint8_t last = 255;      // Outcome of the latest ended job; 255 = none
    uint8_t last_evident = 255;  // the same, passing over completed jobs that weigh under 1/2 (completed_weight)
    int64_t last_end = 0;
    int64_t last_fail_end = 0;
    float max_ok_elapsed_s = -1;  // longest COMPLETED run; -1 none
    float max_rss_mb = -1;        // largest memory high-water mark seen; -1 none
    float max_ok_rss_mb = -1;     // the same over COMPLETED runs (what a --mem suggestion rests on)
    float last_fail_timelimit_min = -1;  // time limit of the latest TIMEOUT
    float last_oom_req_mem_mb = -1;      // memory request of the latest OUT_OF_MEMORY
    // Runs closed so far (see RunEvidence), then the open run: the latest, which the next job may join.
    float w_fail = 0, w_all = 0;  // weight of failed runs, of all runs
    float r_fail = 0, r_all = 0;  // the same, older runs decaying by kDecay per run of full weight
    float w_streak = 0;           // failed runs since one that completed, less what cheap completions weigh
    float fail_used = 0;          // the yardstick: the latest failure's core-seconds, or kYardstickKeep of the one before
    uint32_t run_key = 0;         // the open run's key; 0: no later job joins it
    uint16_t run_jobs = 0;        // labeled jobs in the open run (0: none open)
    uint16_t run_fails = 0;
    float run_ok_weight = 0;      // summed weight of its completed jobs

    static constexpr int kRecent = 10;
    static constexpr float kDecay = 0.9f;       // a run of full weight keeps 90% of the older runs' weight
    static constexpr float kMinWeight = 0.01f;  // a completed run's least weight
    static constexpr float kFullUse = 60;       // core-seconds: the scale of completed_weight's square root
    static constexpr float kYardstickKeep = 0.1f;  // of the yardstick, what a later failure keeps (fail_used)

    // run_key: jobs in a row with the same nonzero key are one run.
    void add(const JobRecord &job, uint32_t run_key = 0);
    bool operator==(const HistoryStats &o) const;
    // Failure fraction of the latest min(kRecent, recent_n) labeled jobs; NaN when none.
    double recent_fail_rate() const;

    // The run evidence with the open run folded in.
    struct RunEvidence {
        double fail_rate = 0;         // failed runs' share of the weight; NaN when no run is labeled
        double recent_fail_rate = 0;  // the same, recent runs weighing most
        double streak = 0;
        double weight = 0;            // the runs' summed weight
    };
    RunEvidence runs() const;
    // What a completed job weighs against this key's costliest recent failure (fail_used): its core-seconds
    // ((elapsed + 1) x CPUs) over the smaller of the failure's and sqrt(kFullUse x the failure's), within
    // [kMinWeight, 1]; 1 when its use is unknown or no failure came before it.
    float completed_weight(const JobRecord &job) const;
};

}  // namespace jfp
