#include "tools/monitor/live_metrics.h"

#include <cstdio>

#include "model/telemetry/metrics_file.h"

namespace jfp {

std::string live_metrics_text(const LiveMonitorReport &r, size_t min_flagged, int64_t written_epoch) {
    const LiveSummary &live = r.live;
    const LiveVerdict &verdict = r.verdict;
    const LivePeriod &total = live.total;
    const double max_psi_seen = live.drift.empty() ? 0.0 : live.drift.front().psi;
    const size_t alerts = verdict.alerts.size();
    const CappedRatio prec = total.precision_capped(live.user_cap), rec = total.recall_capped(live.user_cap);
    std::string o, l = "{model=\"" + prometheus_label(r.model_id) + "\"}";
    auto gauge = [&](const char *name, const char *help, double v, bool present = true) {
        char buf[64];
        // 15 digits: a Unix time (10 digits) is exact; 9 rounded it to 10 s.
        std::snprintf(buf, sizeof buf, "%.15g", v);
        o += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " gauge\n";
        if (present) o += std::string(name) + l + " " + buf + "\n";
    };
    gauge("jfp_live_flagged_jobs", "Jobs the deployed model flagged that have an outcome, in jfp monitor's window.",
          static_cast<double>(total.flagged));
    gauge("jfp_live_min_flagged_jobs", "Flagged jobs with an outcome needed before live precision is judged (--min-flagged).",
          static_cast<double>(min_flagged));
    gauge("jfp_live_precision", "Of those flagged jobs, the share that failed (absent when none was flagged).",
          total.precision(), total.flagged > 0);
    gauge("jfp_live_recall", "Of the failed jobs with an outcome, the share flagged (absent when none failed).",
          total.recall(), total.failed > 0);
    gauge("jfp_live_precision_per_user", "Live precision with each user's flagged jobs counted as at most --user-cap jobs.",
          prec.capped, prec.capped >= 0);
    gauge("jfp_live_recall_per_user", "Live recall with each user's failed jobs counted as at most --user-cap jobs.",
          rec.capped, rec.capped >= 0);
    gauge("jfp_live_flagged_users", "Distinct users whose flagged jobs have an outcome.", static_cast<double>(prec.users));
    gauge("jfp_live_min_users", "Distinct users an alert needs behind its figure (--min-users).",
          static_cast<double>(r.min_users));
    gauge("jfp_live_precision_judged",
          "What the precision alert compares with the target: precision per user, at its highest with any one user's jobs "
          "left out (absent when too few flagged jobs or users to judge).",
          verdict.judged_precision, verdict.judged_precision >= 0);
    gauge("jfp_live_failed_core_hours", "Core-hours (elapsed x CPUs) failed jobs with an outcome burnt, in jfp monitor's window.",
          total.failed_hours);
    gauge("jfp_live_flagged_failed_core_hours",
          "Core-hours burnt by failed jobs the deployed model flagged: what acting on them would have saved.",
          total.flagged_failed_hours);
    gauge("jfp_live_flagged_completed_core_hours", "Core-hours used by flagged jobs that completed: good work a rejection blocks.",
          total.flagged_completed_hours);
    gauge("jfp_live_target_precision", "The precision the model's threshold was chosen for (or --min-precision).", r.target);
    gauge("jfp_live_max_feature_psi", "The largest drift (PSI) of a feature the model uses, from its training window.",
          max_psi_seen);
    gauge("jfp_live_max_feature_psi_judged",
          "What the drift alert compares with --max-psi: the largest PSI per user, at its lowest with any one user's jobs left "
          "out (absent when too few jobs or users to judge).",
          verdict.judged_psi, verdict.judged_psi >= 0);
    gauge("jfp_live_alerts", "Alerts jfp monitor raised (its exit status was 2 when this is above 0).",
          static_cast<double>(alerts));
    gauge("jfp_live_written_seconds", "When jfp monitor wrote this file (Unix time).", static_cast<double>(written_epoch));
    return o;
}

}  // namespace jfp
