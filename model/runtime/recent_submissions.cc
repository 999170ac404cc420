#include "model/runtime/recent_submissions.h"

#include <algorithm>

namespace jfp {

void RecentSubmissions::keep_script_features(const FeatureVector &x, Entry &e) {
    std::copy_n(x.begin() + F_script_bytes, kScriptFeatures, e.script_x.begin());
}

void RecentSubmissions::restore_script_features(const Entry &e, FeatureVector &x) {
    std::copy_n(e.script_x.begin(), kScriptFeatures, x.begin() + F_script_bytes);
}

bool RecentSubmissions::put(const JoinToken &token, JobRequest &&req, const FeatureVector &x, std::string &&user_comment) {
    // Written into the queue's cell in place: the entry is ~400 bytes, and building it, then moving it
    // twice, was a tenth of job_submit's overhead on a fresh thread (bench/hotpath).
    auto fill = [&](std::pair<JoinToken, Entry> &cell) {
        cell.first = token;
        Entry &e = cell.second;
        e.req = std::move(req);
        e.req.script = {};
        e.req.script_known = false;
        e.req.submit_line = {};
        e.req.work_dir = {};
        keep_script_features(x, e);
        e.user_comment = std::move(user_comment);
    };
    if (!pending_.try_push_with(fill)) dropped_.fetch_add(1, std::memory_order_relaxed);
    return (pushes_.fetch_add(1, std::memory_order_relaxed) + 1) % kKickEvery == 0;
}

void RecentSubmissions::drain() {
    std::lock_guard<std::mutex> lk(mu_);
    std::pair<JoinToken, Entry> item;
    while (pending_.try_pop(item)) {
        if (map_.insert_or_assign(item.first, std::move(item.second)).second) order_.push_back(item.first);
        while (order_.size() > kCapacity) {
            map_.erase(order_.front());
            order_.pop_front();
        }
    }
}

std::optional<RecentSubmissions::Entry> RecentSubmissions::get(const JoinToken &token) {
    drain();
    std::lock_guard<std::mutex> lk(mu_);
    auto it = map_.find(token);
    if (it == map_.end()) return std::nullopt;
    return it->second;
}

void RecentSubmissions::update(const JoinToken &token, Entry e) {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = map_.find(token);
    if (it != map_.end()) it->second = std::move(e);
}

}  // namespace jfp
