// jfp monitor: does the deployed model still hold? Joins what the plugin scored at submission (the feature
// log: score, threshold, features) to the outcomes ingested since, per day or week, and measures drift of
// live features from the training window. Exits 2 when live precision falls below the bundle's target or
// drift passes the limit, so cron or a monitoring system can alert; both judged per user (live_alerts.h).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>

#include "model/telemetry/metrics_file.h"
#include "model/scoring/model_bundle.h"
#include "model/util/time_util.h"
#include "model/policy/user_message.h"
#include "tools/operations/operations.h"
#include "tools/options/site_conf.h"
#include "tools/evaluate/live_alerts.h"
#include "tools/evaluate/live_monitor.h"

namespace jfp {

namespace {

struct MonitorArgs {
    ConfDefaults conf;  // --conf: the paths not given
    std::string db, feature_log, model, since, period = "week", metrics_file;
    double min_precision = -1;  // default: the bundle's target precision
    double max_psi = 0.25;
    size_t min_flagged = 20;
    size_t min_scored = 50;  // PSI over fewer live jobs is noise
    size_t min_users = kDefaultMinUsers;
    double user_cap = kDefaultUserCap;
    bool json = false;
};

nlohmann::json ratio_or_null(double v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); }

// The per-user figures beside period_json's plain ones.
void add_capped_json(nlohmann::json &j, const LivePeriod &p, double cap) {
    const CappedRatio prec = p.precision_capped(cap), rec = p.recall_capped(cap);
    j["precision_per_user"] = ratio_or_null(prec.capped);
    j["recall_per_user"] = ratio_or_null(rec.capped);
    j["flagged_users"] = prec.users;
    j["failed_users"] = rec.users;
}

nlohmann::json period_json(const LivePeriod &p) {
    auto ratio = [](double a, double b) -> nlohmann::json { return b > 0 ? nlohmann::json(a / b) : nlohmann::json(nullptr); };
    return {{"scored", p.scored},
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
}

std::string cell(const nlohmann::json &v, const char *f) {
    if (v.is_null()) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, f, v.get<double>());
    return buf;
}

// What monitor found, for node_exporter's textfile collector beside the plugin's own metrics file: the alert
// rules in docs/examples/jfp-alerts.yml compare live precision with its target from these.
std::string live_metrics_text(const std::string &model_id, const LiveSummary &live, const LiveVerdict &verdict,
                              double target, const MonitorArgs &a) {
    const LivePeriod &total = live.total;
    const size_t min_flagged = a.min_flagged;
    const double max_psi_seen = live.drift.empty() ? 0.0 : live.drift.front().psi;
    const size_t alerts = verdict.alerts.size();
    const CappedRatio prec = total.precision_capped(live.user_cap), rec = total.recall_capped(live.user_cap);
    std::string o, l = "{model=\"" + prometheus_label(model_id) + "\"}";
    auto gauge = [&](const char *name, const char *help, double v, bool present = true) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.9g", v);
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
          static_cast<double>(a.min_users));
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
    gauge("jfp_live_target_precision", "The precision the model's threshold was chosen for (or --min-precision).", target);
    gauge("jfp_live_max_feature_psi", "The largest drift (PSI) of a feature the model uses, from its training window.",
          max_psi_seen);
    gauge("jfp_live_max_feature_psi_judged",
          "What the drift alert compares with --max-psi: the largest PSI per user, at its lowest with any one user's jobs left "
          "out (absent when too few jobs or users to judge).",
          verdict.judged_psi, verdict.judged_psi >= 0);
    gauge("jfp_live_alerts", "Alerts jfp monitor raised (its exit status was 2 when this is above 0).",
          static_cast<double>(alerts));
    gauge("jfp_live_written_seconds", "When jfp monitor wrote this file (Unix time).", static_cast<double>(std::time(nullptr)));
    return o;
}

void run_monitor(const MonitorArgs &a) {
    const bool weekly = a.period == "week";
    int64_t since = a.since.empty() ? 0 : parse_time_option(a.since, "--since");
    auto bundle = ModelBundle::load_file(a.model);
    HistoryStore store(a.db, HistoryStore::Access::ReadOnly);

    LiveSummary live = summarize_live(store, bundle, a.feature_log, since, weekly, a.user_cap);
    const auto &periods = live.periods;
    const auto &total = live.total;
    const auto &drift = live.drift;
    double target = a.min_precision >= 0 ? a.min_precision : bundle.metadata().value("target_precision", 0.9);
    auto tj = period_json(total);
    add_capped_json(tj, total, live.user_cap);
    const LiveVerdict verdict = judge_live(live, {target, a.max_psi, a.min_flagged, a.min_scored, a.min_users});
    const auto &alerts = verdict.alerts;
    std::string note;
    for (const auto &n : verdict.notes) note += (note.empty() ? "" : "; ") + n;

    if (a.json) {
        nlohmann::json per = nlohmann::json::array();
        for (const auto &[start, p] : periods) {
            auto j = period_json(p);
            add_capped_json(j, p, live.user_cap);
            j["start"] = format_sacct_time(start).substr(0, 10);
            per.push_back(j);
        }
        nlohmann::json d = nlohmann::json::array();
        for (const auto &f : drift)
            d.push_back({{"feature", feature_names()[static_cast<size_t>(f.feature)]},
                         {"psi", f.psi},
                         {"psi_per_user", f.capped},
                         {"psi_per_user_lowest_without_one", ratio_or_null(f.lowest_without_one)}});
        nlohmann::json out = {{"model_id", bundle.model_id()},
                              {"since", since ? nlohmann::json(format_sacct_time(since)) : nlohmann::json(nullptr)},
                              {"period", a.period},
                              {"total", tj},
                              {"periods", per},
                              {"scored_by_other_models", live.scored_by_other_models},
                              {"training_window", {live.window_start, live.window_end}},
                              {"training_rows", live.training_rows},
                              {"drift", d},
                              {"target_precision", target},
                              {"max_psi", a.max_psi},
                              {"user_cap", live.user_cap},
                              {"min_users", a.min_users},
                              {"scored_users", live.live_users},
                              {"judged_precision", ratio_or_null(verdict.judged_precision)},
                              {"judged_psi", ratio_or_null(verdict.judged_psi)},
                              {"alerts", alerts},
                              {"note", note}};
        std::printf("%s\n", out.dump(2).c_str());
    } else {
        std::printf("jfp monitor: model %s; %llu jobs scored%s, %llu with an outcome (%llu failed)\n", bundle.model_id().c_str(),
                    static_cast<unsigned long long>(total.scored), since ? (" since " + format_sacct_time(since)).c_str() : "",
                    static_cast<unsigned long long>(total.with_outcome), static_cast<unsigned long long>(total.failed));
        if (live.scored_by_other_models)
            std::printf("  %llu of them were scored by another model (a reload since)\n",
                        static_cast<unsigned long long>(live.scored_by_other_models));
        std::printf("  %-11s %8s %8s %7s %8s %9s %7s %9s %9s %9s %8s %6s\n", weekly ? "week of" : "day", "scored", "outcome",
                    "failed", "flagged", "precision", "recall", "predicted", "observed", "prec/user", "rec/user", "users");
        auto row = [&](const std::string &label, const LivePeriod &p) {
            auto j = period_json(p);
            add_capped_json(j, p, live.user_cap);
            std::printf("  %-11s %8llu %8llu %7llu %8llu %9s %7s %9s %9s %9s %8s %6s\n", label.c_str(),
                        static_cast<unsigned long long>(p.scored), static_cast<unsigned long long>(p.with_outcome),
                        static_cast<unsigned long long>(p.failed), static_cast<unsigned long long>(p.flagged),
                        cell(j["precision"], "%.3f").c_str(), cell(j["recall"], "%.3f").c_str(),
                        cell(j["mean_predicted"], "%.3f").c_str(), cell(j["observed_failure_rate"], "%.3f").c_str(),
                        cell(j["precision_per_user"], "%.3f").c_str(), cell(j["recall_per_user"], "%.3f").c_str(),
                        std::to_string(j["flagged_users"].get<size_t>()).c_str());
        };
        for (const auto &[start, p] : periods) row(format_sacct_time(start).substr(0, 10), p);
        row("all", total);
        std::printf("  core-hours (elapsed x CPUs): failed jobs burnt %s, of which flagged jobs %s (%.1f%%); flagged jobs "
                    "that completed used %s\n",
                    amount_text(total.failed_hours).c_str(), amount_text(total.flagged_failed_hours).c_str(),
                    total.failed_hours > 0 ? 100 * total.flagged_failed_hours / total.failed_hours : 0.0,
                    amount_text(total.flagged_completed_hours).c_str());
        std::printf("  drift of the %zu features the model uses, from the training window (%s .. %s, %zu jobs), PSI, "
                    "largest first:", drift.size(), live.window_start.c_str(), live.window_end.c_str(), live.training_rows);
        for (size_t i = 0; i < drift.size() && i < 5; ++i)
            std::printf(" %s %.3f (per user %.3f)%s", feature_names()[static_cast<size_t>(drift[i].feature)], drift[i].psi,
                        drift[i].capped, i + 1 < std::min<size_t>(5, drift.size()) ? "," : "");
        std::printf("\n");
        auto users = [](size_t n) { return std::to_string(n) + (n == 1 ? " user" : " users"); };
        std::printf("  per user: each user's jobs count as at most %g (--user-cap); flagged jobs with an outcome from %s, "
                    "scored jobs from %s; alerts judge the per-user figures and need %s (--min-users)%s\n",
                    live.user_cap, users(tj["flagged_users"].get<size_t>()).c_str(), users(live.live_users).c_str(),
                    users(a.min_users).c_str(),
                    a.min_users >= 2 ? " and to hold with any one user's jobs left out" : "");
        if (!note.empty()) std::printf("  note: %s\n", note.c_str());
        for (const auto &al : alerts) std::printf("  ALERT: %s\n", al.c_str());
    }
    if (!a.metrics_file.empty())
        write_metrics_file(a.metrics_file, live_metrics_text(bundle.model_id(), live, verdict, target, a));
    if (!alerts.empty()) g_exit_status = 2;
}

}  // namespace

void add_monitor_command(Command &app) {
    auto a = std::make_shared<MonitorArgs>();
    auto *c = app.add_subcommand("monitor", "Live precision, recall, calibration and feature drift of the deployed model, "
                                            "from the plugin's feature log joined to ingested outcomes; exit 2 on alert");
    c->add_option("--db", a->db, "history store, with outcomes ingested since the jobs were scored");
    c->add_option("--feature-log", a->feature_log, "the plugin's feature log (feature_log in jfp.conf)");
    c->add_option("--model", a->model, "the deployed model bundle (model in jfp.conf): its training window and target");
    c->add_option("--since", a->since, "only jobs scored at or after this time");
    c->add_option("--period", a->period, "rows per day or per week")->one_of({"day", "week"})->capture_default_str();
    c->add_option("--min-precision", a->min_precision, "alert below this live precision (default: the bundle's target)");
    c->add_option("--max-psi", a->max_psi, "alert when a feature's PSI passes this")->capture_default_str();
    c->add_option("--min-flagged", a->min_flagged, "flagged jobs with an outcome needed to judge precision")->capture_default_str();
    c->add_option("--min-scored", a->min_scored, "scored jobs needed to judge drift (PSI)")->capture_default_str();
    c->add_option("--min-users", a->min_users,
                  "distinct users an alert needs behind its figure; from 2, the alert must also hold with any one "
                  "user's jobs left out")
        ->capture_default_str();
    c->add_option("--user-cap", a->user_cap, "each user's jobs count as at most this many in the per-user figures")
        ->positive()
        ->capture_default_str();
    c->add_flag("--json", a->json, "print one JSON object");
    c->add_option("--metrics-file", a->metrics_file,
                  "also write live precision, recall and drift for node_exporter's textfile collector (Prometheus text)");
    a->conf.add_option(c);
    c->callback([a] {
        a->conf.fill(a->db, ConfPath::Store, "--db", true);
        a->conf.fill(a->feature_log, ConfPath::FeatureLog, "--feature-log", true);
        a->conf.fill(a->model, ConfPath::Model, "--model", true);
        run_monitor(*a);
    });
}

}  // namespace jfp
