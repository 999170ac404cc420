// What jfp monitor alerts on, from a live summary: precision below its target and a feature's drift past its
// limit. Both judge the per-user capped figure (user_capped.h), and only with evidence from several users:
// at least min_users distinct users behind the figure, and (min_users 2 or more) the figure still past its
// limit with any one user's jobs left out, so no single user's jobs can make an alert fire.
#pragma once

#include <string>
#include <vector>

#include "tools/monitor/live_monitor.h"

namespace jfp {

struct LiveAlertRules {
    double min_precision = 0.9;
    double max_psi = 0.25;
    size_t min_flagged = 20;  // flagged jobs with an outcome, all users together
    size_t min_scored = 50;   // PSI over fewer live jobs is noise
    size_t min_users = kDefaultMinUsers;
};

struct LiveVerdict {
    std::vector<std::string> alerts;
    std::vector<std::string> notes;  // what could not be judged, and why
    // The figures compared with the limits (-1: not judged): the capped precision at its highest with any
    // one user left out, and the largest capped PSI at its lowest with any one user left out.
    double judged_precision = -1, judged_psi = -1;
    int judged_psi_feature = -1;
};

LiveVerdict judge_live(const LiveSummary &live, const LiveAlertRules &rules);

}  // namespace jfp
