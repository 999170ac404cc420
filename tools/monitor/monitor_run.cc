#include "tools/monitor/monitor_run.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include <nlohmann/json.hpp>

#include "model/policy/user_message.h"
#include "model/telemetry/metrics_file.h"
#include "model/scoring/features.h"
#include "model/scoring/model_bundle.h"
#include "model/util/text.h"
#include "model/util/time_util.h"
#include "tools/monitor/live_metrics.h"

namespace jfp {

namespace {

nlohmann::json ratio_or_null(double v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); }

// The per-user figures beside period_json's plain ones.
void add_capped_json(nlohmann::json &j, const LivePeriod &p, double cap) {
    const CappedRatio prec = p.precision_capped(cap), rec = p.recall_capped(cap);
    j["precision_per_user"] = ratio_or_null(prec.capped);
    j["recall_per_user"] = ratio_or_null(rec.capped);
    j["flagged_users"] = prec.users;
    j["failed_users"] = rec.users;
}

nlohmann::json period_json(const LivePeriod &p, double cap) {
    auto ratio = [](double a, double b) -> nlohmann::json { return b > 0 ? nlohmann::json(a / b) : nlohmann::json(nullptr); };
    nlohmann::json j = {{"scored", p.scored},
                        {"with_outcome", p.with_outcome},
                        {"failed", p.failed},
                        {"flagged", p.flagged},
                        {"true_positives", p.tp},
                        {"precision", ratio(static_cast<double>(p.tp), static_cast<double>(p.flagged))},
                        {"recall", ratio(static_cast<double>(p.tp), static_cast<double>(p.failed))},
                        {"mean_predicted", ratio(p.sum_p, static_cast<double>(p.with_outcome))},
                        {"observed_failure_rate", ratio(static_cast<double>(p.failed), static_cast<double>(p.with_outcome))},
                        {"failed_core_hours", p.failed_hours},
                        {"flagged_failed_core_hours", p.flagged_failed_hours},
                        {"flagged_completed_core_hours", p.flagged_completed_hours}};
    add_capped_json(j, p, cap);
    return j;
}

std::string cell(const nlohmann::json &v, const char *f) {
    if (v.is_null()) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, f, v.get<double>());
    return buf;
}

std::string notes_of(const LiveVerdict &v) {
    std::string note;
    for (const auto &n : v.notes) note += (note.empty() ? "" : "; ") + n;
    return note;
}

}  // namespace

std::string live_monitor_json(const LiveMonitorReport &r) {
    const LiveSummary &live = r.live;
    nlohmann::json per = nlohmann::json::array();
    for (const auto &[start, p] : live.periods) {
        auto j = period_json(p, live.user_cap);
        j["start"] = format_sacct_time(start).substr(0, 10);
        per.push_back(j);
    }
    nlohmann::json d = nlohmann::json::array();
    for (const auto &f : live.drift)
        d.push_back({{"feature", feature_names()[static_cast<size_t>(f.feature)]},
                     {"psi", f.psi},
                     {"psi_per_user", f.capped},
                     {"psi_per_user_lowest_without_one", ratio_or_null(f.lowest_without_one)}});
    nlohmann::json out = {{"model_id", r.model_id},
                          {"since", r.since ? nlohmann::json(format_sacct_time(r.since)) : nlohmann::json(nullptr)},
                          {"period", r.weekly ? "week" : "day"},
                          {"total", period_json(live.total, live.user_cap)},
                          {"periods", per},
                          {"scored_by_other_models", live.scored_by_other_models},
                          {"training_window", {live.window_start, live.window_end}},
                          {"training_rows", live.training_rows},
                          {"drift", d},
                          {"target_precision", r.target},
                          {"max_psi", r.max_psi},
                          {"user_cap", live.user_cap},
                          {"min_users", r.min_users},
                          {"scored_users", live.live_users},
                          {"judged_precision", ratio_or_null(r.verdict.judged_precision)},
                          {"judged_psi", ratio_or_null(r.verdict.judged_psi)},
                          {"alerts", r.verdict.alerts},
                          {"note", notes_of(r.verdict)}};
    return out.dump(2) + "\n";
}

std::string live_monitor_text(const LiveMonitorReport &r) {
    const LiveSummary &live = r.live;
    const LivePeriod &total = live.total;
    const auto &drift = live.drift;
    std::string o;
    appendf(o, "jfp monitor: model %s; %llu jobs scored%s, %llu with an outcome (%llu failed)\n", r.model_id.c_str(),
            static_cast<unsigned long long>(total.scored), r.since ? (" since " + format_sacct_time(r.since)).c_str() : "",
            static_cast<unsigned long long>(total.with_outcome), static_cast<unsigned long long>(total.failed));
    if (live.scored_by_other_models)
        appendf(o, "  %llu of them were scored by another model (a reload since)\n",
                static_cast<unsigned long long>(live.scored_by_other_models));
    appendf(o, "  %-11s %8s %8s %7s %8s %9s %7s %9s %9s %9s %8s %6s\n", r.weekly ? "week of" : "day", "scored", "outcome",
            "failed", "flagged", "precision", "recall", "predicted", "observed", "prec/user", "rec/user", "users");
    auto row = [&](const std::string &label, const LivePeriod &p) {
        const auto j = period_json(p, live.user_cap);
        appendf(o, "  %-11s %8llu %8llu %7llu %8llu %9s %7s %9s %9s %9s %8s %6s\n", label.c_str(),
                static_cast<unsigned long long>(p.scored), static_cast<unsigned long long>(p.with_outcome),
                static_cast<unsigned long long>(p.failed), static_cast<unsigned long long>(p.flagged),
                cell(j["precision"], "%.3f").c_str(), cell(j["recall"], "%.3f").c_str(),
                cell(j["mean_predicted"], "%.3f").c_str(), cell(j["observed_failure_rate"], "%.3f").c_str(),
                cell(j["precision_per_user"], "%.3f").c_str(), cell(j["recall_per_user"], "%.3f").c_str(),
                std::to_string(j["flagged_users"].get<size_t>()).c_str());
    };
    for (const auto &[start, p] : live.periods) row(format_sacct_time(start).substr(0, 10), p);
    row("all", total);
    appendf(o, "  core-hours (elapsed x CPUs): failed jobs burnt %s, of which flagged jobs %s (%.1f%%); flagged jobs "
               "that completed used %s\n",
            amount_text(total.failed_hours).c_str(), amount_text(total.flagged_failed_hours).c_str(),
            total.failed_hours > 0 ? 100 * total.flagged_failed_hours / total.failed_hours : 0.0,
            amount_text(total.flagged_completed_hours).c_str());
    appendf(o, "  drift of the %zu features the model uses, from the training window (%s .. %s, %zu jobs), PSI, "
               "largest first:", drift.size(), live.window_start.c_str(), live.window_end.c_str(), live.training_rows);
    for (size_t i = 0; i < drift.size() && i < 5; ++i)
        appendf(o, " %s %.3f (per user %.3f)%s", feature_names()[static_cast<size_t>(drift[i].feature)], drift[i].psi,
                drift[i].capped, i + 1 < std::min<size_t>(5, drift.size()) ? "," : "");
    o += "\n";
    auto users = [](size_t n) { return std::to_string(n) + (n == 1 ? " user" : " users"); };
    const size_t flagged_users = total.precision_capped(live.user_cap).users;
    appendf(o, "  per user: each user's jobs count as at most %g (--user-cap); flagged jobs with an outcome from %s, "
               "scored jobs from %s; alerts judge the per-user figures and need %s (--min-users)%s\n",
            live.user_cap, users(flagged_users).c_str(), users(live.live_users).c_str(), users(r.min_users).c_str(),
            r.min_users >= 2 ? " and to hold with any one user's jobs left out" : "");
    const std::string note = notes_of(r.verdict);
    if (!note.empty()) appendf(o, "  note: %s\n", note.c_str());
    for (const auto &al : r.verdict.alerts) appendf(o, "  ALERT: %s\n", al.c_str());
    return o;
}

size_t run_live_monitor(const LiveMonitorOptions &o, std::ostream &out) {
    const ModelBundle bundle = ModelBundle::load_file(o.model);
    HistoryStore store(o.db, HistoryStore::Access::ReadOnly);
    LiveMonitorReport r;
    r.model_id = bundle.model_id();
    r.since = o.since;
    r.weekly = o.weekly;
    r.max_psi = o.max_psi;
    r.min_users = o.min_users;
    r.live = summarize_live(store, bundle, o.feature_log, o.since, o.weekly, o.user_cap);
    r.target = o.min_precision >= 0 ? o.min_precision : bundle.metadata().value("target_precision", 0.9);
    r.verdict = judge_live(r.live, {r.target, o.max_psi, o.min_flagged, o.min_scored, o.min_users});
    out << (o.json ? live_monitor_json(r) : live_monitor_text(r));
    out.flush();
    if (!o.metrics_file.empty())
        write_metrics_file(o.metrics_file, live_metrics_text(r, o.min_flagged, static_cast<int64_t>(std::time(nullptr))));
    return r.verdict.alerts.size();
}

}  // namespace jfp
