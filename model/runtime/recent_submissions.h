// Recent submissions, so that an `scontrol update` of a pending job can be re-scored: the request as
// resolved at submission (without its script), its features and the user's own comment, by join token.
// Bounded, oldest first out. Submissions land in a lock-free queue (the submit path only moves the entry
// in: bench/hotpath measured the locked map insert, with its node allocation and the eviction's frees, at
// 12% of job_submit); the background thread files them into the map, and a lookup, which is rare, files
// what is pending first.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "model/jobs/job_request.h"
#include "model/jobs/join_token.h"
#include "model/scoring/features.h"
#include "model/util/bounded_queue.h"

namespace jfp {

class RecentSubmissions {
public:
    static constexpr int kScriptFeatures = F_script_set_e - F_script_bytes + 1;
    struct Entry {
        JobRequest req;  // without its script, submit line or work dir (views into a freed job_desc)
        std::array<float, kScriptFeatures> script_x{};  // an update cannot change the script: kept as scanned
        std::string user_comment;
    };
    static constexpr size_t kCapacity = 65536;
    static constexpr size_t kPending = 4096;
    static constexpr size_t kKickEvery = 1024;  // pushes between wake-ups of the background thread

    // Never blocks; a full queue drops (counted). Returns whether the background thread should drain.
    // Takes the request's strings and the comment; the views in req are not kept.
    bool put(const JoinToken &token, JobRequest &&req, const FeatureVector &x, std::string &&user_comment);
    static void keep_script_features(const FeatureVector &x, Entry &e);
    static void restore_script_features(const Entry &e, FeatureVector &x);
    // Files what is pending into the map (background thread; get() also does).
    void drain();
    std::optional<Entry> get(const JoinToken &token);
    void update(const JoinToken &token, Entry e);
    uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

private:
    BoundedQueue<std::pair<JoinToken, Entry>> pending_{kPending};
    std::atomic<uint64_t> pushes_{0}, dropped_{0};
    std::mutex mu_;
    std::unordered_map<JoinToken, Entry, JoinToken::Hash> map_;
    std::deque<JoinToken> order_;
};

}  // namespace jfp
