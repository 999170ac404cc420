// Per-key history of ended jobs, and the index the feature builder looks keys up in. The trainer
// replays ended jobs into a HistoryIndex in end order while it sweeps submissions (so every job sees
// only jobs that ended before it was submitted); the plugin's loader replays the store into one the
// same way. One add(), one lookup(): the two sides cannot drift apart.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "job_record.h"
#include "job_request.h"

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

// Which keys a job's history is looked up under.
struct HistoryView {
    const HistoryStats *user_name = nullptr;  // same user, same job name
    const HistoryStats *user_stem = nullptr;  // same user, job name without its trailing number
    const HistoryStats *user = nullptr;
    const HistoryStats *partition = nullptr;  // every user's jobs in the partition
    const HistoryStats *account = nullptr;
    bool loaded = false;  // a history was loaded; false: the store is missing or failed (no evidence either way)
};

// "wrf_run_017" -> "wrf_run", "app123" -> "app", "run-2024.07" -> "run": the part of a name that stays
// the same across a series of runs. A name with nothing else left keeps itself.
std::string_view name_stem(std::string_view name);

// The first partition of a comma list.
std::string_view first_partition(std::string_view partitions);

class HistoryIndex {
public:
    void add(const JobRecord &job);
    HistoryView lookup(const JobRequest &req) const;
    size_t keys() const { return map_.size(); }
    uint64_t jobs_added() const { return added_; }
    void reserve(size_t n) { map_.reserve(n); }
    bool operator==(const HistoryIndex &o) const { return added_ == o.added_ && map_ == o.map_; }

private:
    const HistoryStats *find(uint64_t key) const;
    // Keys are 64-bit hashes of (scope, strings): no allocation per lookup on the submit path.
    std::unordered_map<uint64_t, HistoryStats> map_;
    uint64_t added_ = 0;
};

}  // namespace jfp
