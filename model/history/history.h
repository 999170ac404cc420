// Per-key history of ended jobs, and the index the feature builder looks keys up in. The trainer
// replays ended jobs into a HistoryIndex in end order while it sweeps submissions (so every job sees
// only jobs that ended before it was submitted); the plugin's loader replays the store into one the
// same way. One add(), one lookup(): the two sides cannot drift apart.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "model/history/history_stats.h"
#include "model/history/name_identity.h"
#include "model/history/stats_table.h"
#include "model/jobs/job_record.h"
#include "model/jobs/job_request.h"

namespace jfp {

// Which keys a job's history is looked up under.
struct HistoryView {
    const HistoryStats *user_name = nullptr;  // same user, same job name
    const HistoryStats *user_stem = nullptr;  // same user, job name without its trailing number
    const HistoryStats *user = nullptr;
    const HistoryStats *partition = nullptr;  // every user's jobs in the partition, by user (PoolUsers)
    const HistoryStats *account = nullptr;
    // user_name holds the history of the job's script (same user, same script_fingerprint, under any name)
    // rather than of its name: the script has finished runs (COMPLETED or failed) on record.
    bool name_from_script = false;
    bool loaded = false;  // a history was loaded; false: the store is missing or failed (no evidence either way)
};

// "wrf_run_017" -> "wrf_run", "app123" -> "app", "run-2024.07" -> "run": the part of a name that stays
// the same across a series of runs. A name with nothing else left keeps itself.
std::string_view name_stem(std::string_view name);
// The series a name belongs to: its stem, less a version mark before the number ("sim_v2" -> "sim").
std::string_view name_series(std::string_view name);

// The first partition of a comma list.
std::string_view first_partition(std::string_view partitions);

// The users a pooled key (a partition, an account) saw last, each with their own recent failure rate
// there, latest first: the pooled key's recent rate is their mean, so one user moves it by one share at
// most however many jobs they end there, interleaved with others' or not (issue 48, class 6).
struct PoolUsers {
    static constexpr int kUsers = 16;
    uint64_t user[kUsers] = {};
    float rate[kUsers] = {};
    uint8_t n = 0;
    // The user's rate now: moved to the front, or put there (the oldest user leaves a full ring).
    void put(uint64_t user_key, float recent_rate);
    float sum() const;
    bool operator==(const PoolUsers &o) const;
};

// Under this many users with labeled jobs, a pooled key says nothing (its rates read as unknown): with
// fewer, one user is most of the number.
inline constexpr uint32_t kMinPoolUsers = 3;

class HistoryIndex {
public:
    void add(const JobRecord &job);
    HistoryView lookup(const JobRequest &req) const;
    // The same with the name's identity already computed (name_identity(req.name)): a caller judging one
    // name many times (a partition list, an update's records) computes it once.
    HistoryView lookup(const JobRequest &req, const NameIdentity &name) const;
    // Whether the history has jobs of this partition (its first entry).
    bool knows_partition(std::string_view partition) const;
    size_t keys() const { return map_.size(); }
    uint64_t jobs_added() const { return added_; }
    void reserve(size_t n) { map_.reserve(n); }
    size_t slot_count() const { return map_.slot_count(); }
    // Room for `jobs` more jobs' keys, built without writing to the index (see StatsTable::rehashed_for).
    StatsTable::Rehash rehashed_for_jobs(size_t jobs) const { return map_.rehashed_for(map_.size() + kKeysPerJob * jobs); }
    void adopt(StatsTable::Rehash &&r) { map_.adopt(std::move(r)); }
    bool operator==(const HistoryIndex &o) const { return added_ == o.added_ && map_ == o.map_ && pools_ == o.pools_; }

private:
    friend struct HistoryCodec;  // snapshot_file.cc
    // add()'s keys: user+name, user+stem, user, partition and the user there, account and the user there, user+script
    static constexpr size_t kKeysPerJob = 8;
    void add_pooled(uint64_t pool_key, uint64_t user_there_key, uint64_t user_key, const JobRecord &job, uint32_t run);
    // Keys are 64-bit hashes of (scope, strings): no allocation per lookup on the submit path.
    StatsTable map_;
    std::unordered_map<uint64_t, PoolUsers> pools_;  // by pooled key
    uint64_t added_ = 0;
};

}  // namespace jfp
