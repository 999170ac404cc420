// What the history says about one key (a user, a user's job name, a partition...): counts, the latest
// outcomes and the largest resources seen, folded one ended job at a time in end order.
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
    int64_t last_end = 0;
    int64_t last_fail_end = 0;
    float max_ok_elapsed_s = -1;  // longest COMPLETED run; -1 none
    float max_rss_mb = -1;        // largest memory high-water mark seen; -1 none
    float max_ok_rss_mb = -1;     // the same over COMPLETED runs (what a --mem suggestion rests on)
    float last_fail_timelimit_min = -1;  // time limit of the latest TIMEOUT
    float last_oom_req_mem_mb = -1;      // memory request of the latest OUT_OF_MEMORY

    static constexpr int kRecent = 10;

    void add(const JobRecord &job);
    bool operator==(const HistoryStats &o) const;
    // Failure fraction of the latest min(kRecent, recent_n) labeled jobs; NaN when none.
    double recent_fail_rate() const;
};

}  // namespace jfp
