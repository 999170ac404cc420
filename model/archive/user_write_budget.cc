#include "model/archive/user_write_budget.h"

#include <algorithm>

#include "model/util/log.h"

namespace jfp {

void UserWriteBudget::set_limit(int64_t bytes_per_day) {
    std::lock_guard<std::mutex> lk(mu_);
    limit_ = static_cast<uint64_t>(bytes_per_day);
    over_ = 0;
    for (auto &[uid, s] : spent_) {
        s.over = s.total() >= limit_;
        over_ += s.over;
    }
}

int64_t UserWriteBudget::limit() const {
    std::lock_guard<std::mutex> lk(mu_);
    return static_cast<int64_t>(limit_);
}

void UserWriteBudget::roll(int64_t day) {
    if (day <= day_) return;
    spent_.clear();
    over_ = 0;
    day_ = day;
}

void UserWriteBudget::set_source(File file, Source source) {
    std::lock_guard<std::mutex> seeding(seed_mu_);
    std::lock_guard<std::mutex> lk(mu_);
    sources_[static_cast<int>(file)] = std::move(source);
    read_day_[static_cast<int>(file)] = INT64_MIN;
}

void UserWriteBudget::read_sources(int64_t day) {
    auto pending = [&] {
        std::lock_guard<std::mutex> lk(mu_);
        roll(day);
        for (int f = 0; f < 2; ++f)
            if (sources_[f] && read_day_[f] < day_) return true;
        return false;
    };
    if (!pending()) return;
    std::lock_guard<std::mutex> seeding(seed_mu_);
    for (int f = 0; f < 2; ++f) {
        Source source;
        int64_t today;
        {
            std::lock_guard<std::mutex> lk(mu_);
            roll(day);
            if (!sources_[f] || read_day_[f] >= day_) continue;
            source = sources_[f];
            today = day_;
        }
        std::unordered_map<uint32_t, uint64_t> spent;
        try {
            spent = source(today * 86400);
        } catch (const std::exception &ex) {
            log_warning(std::string("user_mb_per_day: could not read what users added to the ") +
                        (f == 0 ? "feature log" : "script archive") + " today (" + ex.what() +
                        "); counting from now");
        }
        seed(static_cast<File>(f), today, spent);
        std::lock_guard<std::mutex> lk(mu_);
        read_day_[f] = today;
    }
}

bool UserWriteBudget::admit(File file, uint32_t uid, int64_t day) {
    read_sources(day);
    std::lock_guard<std::mutex> lk(mu_);
    roll(day);
    auto it = spent_.find(uid);
    if (it == spent_.end() || !it->second.over) return true;
    refused_[static_cast<int>(file)].fetch_add(1, std::memory_order_relaxed);
    return false;
}

bool UserWriteBudget::charge(File file, uint32_t uid, int64_t day, uint64_t bytes) {
    std::lock_guard<std::mutex> lk(mu_);
    roll(day);
    Spent &s = spent_[uid];
    s.part[static_cast<int>(file)] += bytes;
    if (s.over || s.total() < limit_) return false;
    s.over = true;
    ++over_;
    return true;
}

void UserWriteBudget::refund(File file, uint32_t uid, int64_t day, uint64_t bytes) {
    std::lock_guard<std::mutex> lk(mu_);
    if (day != day_) return;  // a late entry, or a day since rolled over: the charge is kept (the safe side)
    auto it = spent_.find(uid);
    if (it == spent_.end()) return;
    uint64_t &part = it->second.part[static_cast<int>(file)];
    part -= std::min(part, bytes);
    if (it->second.over && it->second.total() < limit_) {
        it->second.over = false;
        --over_;
    }
}

void UserWriteBudget::seed(File file, int64_t day, const std::unordered_map<uint32_t, uint64_t> &spent) {
    std::lock_guard<std::mutex> lk(mu_);
    roll(day);
    if (day < day_) return;  // an older day's figures say nothing of today's
    for (const auto &[uid, bytes] : spent) {
        Spent &s = spent_[uid];
        uint64_t &part = s.part[static_cast<int>(file)];
        part = std::max(part, bytes);
        if (!s.over && s.total() >= limit_) {
            s.over = true;
            ++over_;
        }
    }
}

size_t UserWriteBudget::users_over_on(int64_t today) const {
    std::lock_guard<std::mutex> lk(mu_);
    return day_ < today ? 0 : over_;
}

uint64_t UserWriteBudget::spent(uint32_t uid) const {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = spent_.find(uid);
    return it == spent_.end() ? 0 : it->second.total();
}

void log_user_spent(const char *file, const std::string &user, uint32_t uid, int64_t limit) {
    log_warning(std::string(file) + ": user " + user + " (uid " + std::to_string(uid) + ") has added " +
                std::to_string(limit >> 20) + " MiB to jfp's feature log and script archive today (user_mb_per_day): "
                "nothing more of theirs is logged or archived until tomorrow; their jobs are judged as before "
                "(jfp_user_budget_refused_total counts what is left out)");
}

BatchCharges::~BatchCharges() {
    for (const Charge &c : charges_) budget_->refund(file_, c.uid, c.day, c.bytes);
}

void BatchCharges::charge(uint32_t uid, const std::string &user, int64_t day, uint64_t bytes) {
    if (!budget_) return;
    charges_.push_back({uid, day, bytes});
    if (budget_->charge(file_, uid, day, bytes)) log_user_spent(file_name_, user, uid, budget_->limit());
}

}  // namespace jfp
