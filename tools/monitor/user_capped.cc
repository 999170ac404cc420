#include "tools/monitor/user_capped.h"

#include <algorithm>

namespace jfp {

double user_weight(double jobs, double cap) { return jobs > cap ? cap / jobs : 1.0; }

CappedRatio capped_ratio(const std::map<uint32_t, UserShare> &by_user, double cap) {
    CappedRatio r;
    uint64_t hits = 0, jobs = 0;
    double hit_mass = 0;
    for (const auto &[uid, s] : by_user) {
        if (s.jobs == 0) continue;
        const double w = user_weight(static_cast<double>(s.jobs), cap);
        hits += s.hits;
        jobs += s.jobs;
        hit_mass += w * static_cast<double>(s.hits);
        r.mass += w * static_cast<double>(s.jobs);
        ++r.users;
    }
    if (jobs == 0) return r;
    r.plain = static_cast<double>(hits) / static_cast<double>(jobs);
    r.capped = hit_mass / r.mass;
    if (r.users < 2) return r;
    r.lowest_without_one = 2, r.highest_without_one = -1;
    for (const auto &[uid, s] : by_user) {
        if (s.jobs == 0) continue;
        const double w = user_weight(static_cast<double>(s.jobs), cap);
        const double rest = r.mass - w * static_cast<double>(s.jobs);
        if (rest <= 0) continue;
        // Clamped: the subtraction may leave a rounding error outside [0, 1].
        const double v = std::clamp((hit_mass - w * static_cast<double>(s.hits)) / rest, 0.0, 1.0);
        r.lowest_without_one = std::min(r.lowest_without_one, v);
        r.highest_without_one = std::max(r.highest_without_one, v);
    }
    if (r.highest_without_one < 0) r.lowest_without_one = -1;  // no user left anything behind
    return r;
}

}  // namespace jfp
