// How many new bytes one user may add to the script archive in a day. Every script a user writes differently
// is new to the archive, so without a bound one user's --test-only loop of distinct multi-MiB scripts fills
// the disk the archive shares (requests that never become jobs are reclaimed only after prune's grace).
// Past the budget a submission is still archived, as a head of its script (kOverBudgetHead bytes) without its
// environment: the cost of one submission is then bounded by the caps, like the feature log's row.
//
// Days are the submissions' own (naive local seconds / 86400), so the archive can say what a user added today
// after a restart or a new writer (seed()): the budget is not memory a restart gives back.
// Writer thread only. One entry per user who submitted today; the map is emptied when the day changes.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>

namespace jfp {

class UserDailyBudget {
public:
    static constexpr size_t kOverBudgetHead = 4096;

    explicit UserDailyBudget(int64_t bytes_per_day) : limit_(bytes_per_day) {}
    // Whether uid has spent its budget on `day` (days since the epoch).
    bool spent(uint32_t uid, int64_t day) {
        roll(day);
        auto it = spent_.find(uid);
        return it != spent_.end() && it->second >= static_cast<uint64_t>(limit_);
    }
    // What the archive holds for `day` (ScriptArchive::new_bytes_by_user_since), replacing what was counted.
    void seed(int64_t day, std::unordered_map<uint32_t, uint64_t> spent) {
        day_ = day;
        spent_ = std::move(spent);
    }
    void charge(uint32_t uid, int64_t day, uint64_t bytes) {
        roll(day);
        spent_[uid] += bytes;
    }

private:
    void roll(int64_t day) {
        if (day == day_) return;
        spent_.clear();
        day_ = day;
    }
    int64_t limit_;
    int64_t day_ = INT64_MIN;
    std::unordered_map<uint32_t, uint64_t> spent_;
};

}  // namespace jfp
