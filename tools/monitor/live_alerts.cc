#include "tools/monitor/live_alerts.h"

#include <algorithm>
#include <cstdio>

#include "model/scoring/features.h"

namespace jfp {

namespace {

std::string fixed3(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

std::string users_text(size_t n) { return std::to_string(n) + (n == 1 ? " user" : " users"); }

}  // namespace

LiveVerdict judge_live(const LiveSummary &live, const LiveAlertRules &rules) {
    LiveVerdict v;
    const bool leave_one_out = rules.min_users >= 2;
    const LivePeriod &total = live.total;

    const CappedRatio prec = total.precision_capped(live.user_cap);
    if (total.flagged < rules.min_flagged)
        v.notes.push_back("only " + std::to_string(total.flagged) +
                          " flagged jobs have an outcome: too few to judge precision (--min-flagged)");
    else if (prec.users < rules.min_users)
        v.notes.push_back("the flagged jobs with an outcome are from " + users_text(prec.users) +
                          ": not enough users to judge precision (--min-users " + std::to_string(rules.min_users) + ")");
    else if (prec.capped >= 0) {
        v.judged_precision = leave_one_out ? std::max(prec.capped, prec.highest_without_one) : prec.capped;
        if (v.judged_precision < rules.min_precision)
            v.alerts.push_back("live precision per user " + fixed3(prec.capped) + " (all jobs " + fixed3(prec.plain) +
                               ") is below " + fixed3(rules.min_precision) + " (" + std::to_string(total.tp) + " of " +
                               std::to_string(total.flagged) + " flagged jobs failed, " + users_text(prec.users) + ")" +
                               (leave_one_out ? "; below it with any one user's jobs left out" : ""));
    }

    if (total.scored < rules.min_scored)
        v.notes.push_back("only " + std::to_string(total.scored) + " jobs scored: too few to judge drift (--min-scored)");
    else if (live.live_users < rules.min_users)
        v.notes.push_back("the scored jobs are from " + users_text(live.live_users) +
                          ": not enough users to judge drift (--min-users " + std::to_string(rules.min_users) + ")");
    else
        for (const FeatureDrift &d : live.drift) {
            const double judged = leave_one_out ? std::min(d.capped, d.lowest_without_one) : d.capped;
            if (judged > v.judged_psi) v.judged_psi = judged, v.judged_psi_feature = d.feature;
        }
    if (v.judged_psi > rules.max_psi) {
        const auto &d = *std::find_if(live.drift.begin(), live.drift.end(),
                                      [&](const FeatureDrift &x) { return x.feature == v.judged_psi_feature; });
        v.alerts.push_back(std::string("feature ") + feature_names()[static_cast<size_t>(d.feature)] +
                           " drifted: PSI per user " + fixed3(d.capped) + " (all jobs " + fixed3(d.psi) + ") > " +
                           fixed3(rules.max_psi) + (leave_one_out ? "; past it with any one user's jobs left out" : ""));
    }
    return v;
}

}  // namespace jfp
