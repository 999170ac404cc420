// jfp monitor: does the deployed model still hold? Joins what the plugin scored at submission (the feature
// log: score, threshold, features) to the outcomes ingested since, per day or week, and measures drift of
// live features from the training window. Exits 2 when live precision falls below the bundle's target or
// drift passes the limit, so cron or a monitoring system can alert.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "commands.h"
#include "metrics.h"
#include "model/feature_log.h"
#include "model/feature_sweep.h"
#include "model/model_bundle.h"
#include "model/time_util.h"

namespace jfp {

namespace {

struct MonitorArgs {
    std::string db, feature_log, model, since, period = "week";
    double min_precision = -1;  // default: the bundle's target precision
    double max_psi = 0.25;
    size_t min_flagged = 20;
    bool json = false;
};

struct Period {
    uint64_t scored = 0, with_outcome = 0, failed = 0, flagged = 0, tp = 0;
    double sum_p = 0;  // over jobs with an outcome
};

int64_t period_start(int64_t naive, bool weekly) {
    int64_t day = naive >= 0 ? naive / 86400 : -((-naive + 86399) / 86400);
    if (weekly) day -= weekday(day * 86400);  // Monday
    return day * 86400;
}

nlohmann::json period_json(const Period &p) {
    auto ratio = [](double a, double b) -> nlohmann::json { return b > 0 ? nlohmann::json(a / b) : nlohmann::json(nullptr); };
    return {{"scored", p.scored},
            {"with_outcome", p.with_outcome},
            {"failed", p.failed},
            {"flagged", p.flagged},
            {"true_positives", p.tp},
            {"precision", ratio(static_cast<double>(p.tp), static_cast<double>(p.flagged))},
            {"recall", ratio(static_cast<double>(p.tp), static_cast<double>(p.failed))},
            {"mean_predicted", ratio(p.sum_p, static_cast<double>(p.with_outcome))},
            {"observed_failure_rate", ratio(static_cast<double>(p.failed), static_cast<double>(p.with_outcome))}};
}

std::string cell(const nlohmann::json &v, const char *f) {
    if (v.is_null()) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, f, v.get<double>());
    return buf;
}

void run_monitor(const MonitorArgs &a) {
    const bool weekly = a.period == "week";
    int64_t since = a.since.empty() ? 0 : parse_time_option(a.since, "--since");
    auto bundle = ModelBundle::load_file(a.model);
    auto logged = read_feature_log(a.feature_log);
    HistoryStore store(a.db, HistoryStore::Access::ReadOnly);

    std::string win_start, win_end;
    try {
        const auto &w = bundle.metadata().at("training").at("train_window");
        win_start = w.at(0).get<std::string>();
        win_end = w.at(1).get<std::string>();
    } catch (const std::exception &) {
        throw std::runtime_error(a.model + " records no training window (training.train_window): drift needs it; retrain "
                                 "with this jfp");
    }
    int64_t t0 = *parse_sacct_time(win_start), t1 = *parse_sacct_time(win_end);

    std::vector<std::vector<float>> train(kNumFeatures), live(kNumFeatures);
    std::map<int64_t, Period> periods;
    Period total;
    uint64_t live_models_other = 0;
    // Outcomes by token, and the training window's features, in one pass over the store.
    std::unordered_map<std::string, Outcome> outcome_by_token;
    sweep_features(store, [&](const JobRecord &j, const FeatureVector &x) {
        if (j.submit >= t0 && j.submit <= t1 && is_labeled(j.outcome))
            for (int f = 0; f < kNumFeatures; ++f) train[static_cast<size_t>(f)].push_back(x[static_cast<size_t>(f)]);
        if (!j.jfp_token.empty()) outcome_by_token[j.jfp_token] = j.outcome;
    });
    for (const auto &[token, lf] : logged) {
        if (lf.scored_at < since) continue;
        if (lf.model_id != bundle.model_id()) ++live_models_other;
        Period &p = periods[period_start(lf.scored_at, weekly)];
        for (Period *q : {&p, &total}) ++q->scored;
        for (int f = 0; f < kNumFeatures; ++f) live[static_cast<size_t>(f)].push_back(lf.x[static_cast<size_t>(f)]);
        auto it = outcome_by_token.find(token);
        if (it == outcome_by_token.end() || !is_labeled(it->second)) continue;  // not ended, or no verdict
        bool failed = is_failure(it->second), flagged = lf.p_fail >= lf.threshold;
        for (Period *q : {&p, &total}) {
            ++q->with_outcome;
            q->failed += failed;
            q->flagged += flagged;
            q->tp += failed && flagged;
            q->sum_p += lf.p_fail;
        }
    }
    if (total.scored == 0)
        throw std::runtime_error("the feature log " + a.feature_log + " has no scored job" +
                                 (since ? " since " + format_sacct_time(since) : std::string()) +
                                 "; is feature_log set in jfp.conf, and has the plugin scored jobs?");

    // Only features the model splits on: drift elsewhere cannot move a score (the script features, unknown in
    // every sacct-trained window and present live, would otherwise raise an alarm at every site).
    std::vector<std::pair<double, int>> drift;
    if (!train[0].empty())
        for (int f = 0; f < kNumFeatures; ++f)
            if (bundle.failure_model().uses_feature(f))
                drift.push_back({population_stability_index(train[static_cast<size_t>(f)], live[static_cast<size_t>(f)]), f});
    std::sort(drift.rbegin(), drift.rend());

    double target = a.min_precision >= 0 ? a.min_precision : bundle.metadata().value("target_precision", 0.9);
    auto tj = period_json(total);
    std::vector<std::string> alerts;
    if (total.flagged >= a.min_flagged && !tj["precision"].is_null() && tj["precision"].get<double>() < target)
        alerts.push_back("live precision " + cell(tj["precision"], "%.3f") + " is below " + cell(target, "%.3f") + " (" +
                         std::to_string(total.tp) + " of " + std::to_string(total.flagged) + " flagged jobs failed)");
    if (!drift.empty() && drift.front().first > a.max_psi)
        alerts.push_back(std::string("feature ") + feature_names()[static_cast<size_t>(drift.front().second)] +
                         " drifted: PSI " + cell(drift.front().first, "%.3f") + " > " + cell(a.max_psi, "%.3f"));
    std::string note = total.flagged < a.min_flagged ? "only " + std::to_string(total.flagged) +
                                                           " flagged jobs have an outcome: too few to judge precision (--min-flagged)"
                                                     : "";

    if (a.json) {
        nlohmann::json per = nlohmann::json::array();
        for (const auto &[start, p] : periods) {
            auto j = period_json(p);
            j["start"] = format_sacct_time(start).substr(0, 10);
            per.push_back(j);
        }
        nlohmann::json d = nlohmann::json::array();
        for (const auto &[v, f] : drift) d.push_back({{"feature", feature_names()[static_cast<size_t>(f)]}, {"psi", v}});
        nlohmann::json out = {{"model_id", bundle.model_id()},
                              {"since", since ? nlohmann::json(format_sacct_time(since)) : nlohmann::json(nullptr)},
                              {"period", a.period},
                              {"total", tj},
                              {"periods", per},
                              {"scored_by_other_models", live_models_other},
                              {"training_window", {win_start, win_end}},
                              {"training_rows", train[0].size()},
                              {"drift", d},
                              {"target_precision", target},
                              {"max_psi", a.max_psi},
                              {"alerts", alerts},
                              {"note", note}};
        std::printf("%s\n", out.dump(2).c_str());
    } else {
        std::printf("jfp monitor: model %s; %llu jobs scored%s, %llu with an outcome (%llu failed)\n", bundle.model_id().c_str(),
                    static_cast<unsigned long long>(total.scored), since ? (" since " + format_sacct_time(since)).c_str() : "",
                    static_cast<unsigned long long>(total.with_outcome), static_cast<unsigned long long>(total.failed));
        if (live_models_other)
            std::printf("  %llu of them were scored by another model (a reload since)\n",
                        static_cast<unsigned long long>(live_models_other));
        std::printf("  %-11s %8s %8s %7s %8s %9s %7s %9s %9s\n", weekly ? "week of" : "day", "scored", "outcome", "failed",
                    "flagged", "precision", "recall", "predicted", "observed");
        auto row = [&](const std::string &label, const Period &p) {
            auto j = period_json(p);
            std::printf("  %-11s %8llu %8llu %7llu %8llu %9s %7s %9s %9s\n", label.c_str(),
                        static_cast<unsigned long long>(p.scored), static_cast<unsigned long long>(p.with_outcome),
                        static_cast<unsigned long long>(p.failed), static_cast<unsigned long long>(p.flagged),
                        cell(j["precision"], "%.3f").c_str(), cell(j["recall"], "%.3f").c_str(),
                        cell(j["mean_predicted"], "%.3f").c_str(), cell(j["observed_failure_rate"], "%.3f").c_str());
        };
        for (const auto &[start, p] : periods) row(format_sacct_time(start).substr(0, 10), p);
        row("all", total);
        std::printf("  drift of the %zu features the model uses, from the training window (%s .. %s, %zu jobs), PSI, "
                    "largest first:", drift.size(), win_start.c_str(), win_end.c_str(), train[0].size());
        for (size_t i = 0; i < drift.size() && i < 5; ++i)
            std::printf(" %s %.3f%s", feature_names()[static_cast<size_t>(drift[i].second)], drift[i].first, i + 1 < 5 ? "," : "");
        std::printf("\n");
        if (!note.empty()) std::printf("  note: %s\n", note.c_str());
        for (const auto &al : alerts) std::printf("  ALERT: %s\n", al.c_str());
    }
    if (!alerts.empty()) g_exit_status = 2;
}

}  // namespace

void add_monitor_command(CLI::App &app) {
    auto a = std::make_shared<MonitorArgs>();
    auto *c = app.add_subcommand("monitor", "Live precision, recall, calibration and feature drift of the deployed model, "
                                            "from the plugin's feature log joined to ingested outcomes; exit 2 on alert");
    c->add_option("--db", a->db, "history store, with outcomes ingested since the jobs were scored")->required();
    c->add_option("--feature-log", a->feature_log, "the plugin's feature log (feature_log in jfp.conf)")->required();
    c->add_option("--model", a->model, "the deployed model bundle (model in jfp.conf): its training window and target")
        ->required();
    c->add_option("--since", a->since, "only jobs scored at or after this time");
    c->add_option("--period", a->period, "rows per day or per week")->check(CLI::IsMember({"day", "week"}))->capture_default_str();
    c->add_option("--min-precision", a->min_precision, "alert below this live precision (default: the bundle's target)");
    c->add_option("--max-psi", a->max_psi, "alert when a feature's PSI passes this")->capture_default_str();
    c->add_option("--min-flagged", a->min_flagged, "flagged jobs with an outcome needed to judge precision")->capture_default_str();
    c->add_flag("--json", a->json, "print one JSON object");
    c->callback([a] { run_monitor(*a); });
}

}  // namespace jfp
