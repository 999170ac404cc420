#include "recent_submissions.h"

namespace jfp {

bool RecentSubmissions::put(const JoinToken &token, Entry e) {
    if (!pending_.try_push(std::make_pair(token, std::move(e)))) dropped_.fetch_add(1, std::memory_order_relaxed);
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
