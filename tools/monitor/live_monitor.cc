#include "tools/monitor/live_monitor.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "model/policy/policy.h"
#include "model/scoring/feature_log.h"
#include "model/scoring/feature_sweep.h"
#include "model/util/time_util.h"

namespace jfp {

namespace {

int64_t period_start(int64_t naive, bool weekly) {
    int64_t day = naive >= 0 ? naive / 86400 : -((-naive + 86399) / 86400);
    if (weekly) day -= weekday(day * 86400);  // Monday
    return day * 86400;
}

// Training rows are told apart by uid when the export had one, else by name (a distinct key space).
uint64_t training_user(const JobRecord &j) {
    if (j.uid >= 0) return static_cast<uint64_t>(j.uid);
    return std::hash<std::string>()(j.user) | (uint64_t(1) << 63);
}

}  // namespace

void LivePeriod::add_outcome(uint32_t uid, bool is_failed, bool is_flagged, double p_fail, double core_hours) {
    ++with_outcome;
    failed += is_failed;
    flagged += is_flagged;
    tp += is_failed && is_flagged;
    sum_p += p_fail;
    if (is_failed) failed_hours += core_hours;
    if (is_failed && is_flagged) flagged_failed_hours += core_hours;
    if (!is_failed && is_flagged) flagged_completed_hours += core_hours;
    if (is_flagged) {
        UserShare &u = precision_by_user[uid];
        ++u.jobs;
        u.hits += is_failed;
    }
    if (is_failed) {
        UserShare &u = recall_by_user[uid];
        ++u.jobs;
        u.hits += is_flagged;
    }
}

LiveSummary summarize_live(const HistoryStore &store, const ModelBundle &bundle, const std::string &feature_log,
                           int64_t since, bool weekly, double user_cap) {
    auto logged = read_feature_log(feature_log);
    std::string win_start, win_end;
    try {
        const auto &w = bundle.metadata().at("training").at("train_window");
        win_start = w.at(0).get<std::string>();
        win_end = w.at(1).get<std::string>();
    } catch (const std::exception &) {
        throw std::runtime_error("the model bundle records no training window (training.train_window): drift needs it; retrain "
                                 "with this jfp");
    }
    int64_t t0 = *parse_sacct_time(win_start), t1 = *parse_sacct_time(win_end);

    std::vector<std::vector<float>> train(kNumFeatures);
    std::vector<uint64_t> train_users;
    std::map<int64_t, LivePeriod> periods;
    LivePeriod total;
    uint64_t live_models_other = 0;
    // Outcomes by token, and the training window's features, in one pass over the store.
    struct Ended {
        Outcome outcome;
        double core_hours;
    };
    std::unordered_map<std::string, Ended> outcome_by_token;
    // The training window as the trainer saw it: a job the plugin logged has the vector it logged (script
    // features and findings included), as jfp train --feature-log reads it.
    sweep_features(store, [&](const JobRecord &j, const FeatureVector &x) {
        if (j.submit >= t0 && j.submit <= t1 && is_labeled(j.outcome)) {
            for (int f = 0; f < kNumFeatures; ++f) train[static_cast<size_t>(f)].push_back(x[static_cast<size_t>(f)]);
            train_users.push_back(training_user(j));
        }
        if (!j.jfp_token.empty())
            outcome_by_token[j.jfp_token] = {j.outcome, known(j.elapsed_s) && known(j.req_cpus) ? j.elapsed_s * j.req_cpus / 3600.0 : 0.0};
    }, &logged);
    // Only features the model splits on: drift elsewhere cannot move a score (the script features, unknown in
    // every sacct-trained window and present live, would otherwise raise an alarm at every site).
    std::vector<int> used;
    for (int f = 0; f < kNumFeatures; ++f)
        if (bundle.uses_feature(f)) used.push_back(f);
    CappedDrift drift(train, train_users, used, user_cap);
    const size_t training_rows = train_users.size();
    train = {};  // binned: the values are no longer needed
    for (const auto &[token, lf] : logged) {
        if (lf.scored_at < since) continue;
        if (lf.model_id != bundle.model_id()) ++live_models_other;
        LivePeriod &p = periods[period_start(lf.scored_at, weekly)];
        for (LivePeriod *q : {&p, &total}) ++q->scored;
        drift.add_live(lf.uid, lf.x.data());
        auto it = outcome_by_token.find(token);
        if (it == outcome_by_token.end() || !is_labeled(it->second.outcome)) continue;  // not ended, or no verdict
        const bool failed = is_failure(it->second.outcome);
        const bool flagged = lf.p_fail >= lf.threshold || lf.action == static_cast<uint8_t>(Action::Warn) ||
                             lf.action == static_cast<uint8_t>(Action::Reject);
        for (LivePeriod *q : {&p, &total}) q->add_outcome(lf.uid, failed, flagged, lf.p_fail, it->second.core_hours);
    }
    if (total.scored == 0)
        throw std::runtime_error("the feature log " + feature_log + " has no scored job" +
                                 (since ? " since " + format_sacct_time(since) : std::string()) +
                                 "; is feature_log set in jfp.conf, and has the plugin scored jobs?");

    LiveSummary out;
    out.periods = std::move(periods);
    out.total = total;
    out.scored_by_other_models = live_models_other;
    out.window_start = win_start;
    out.window_end = win_end;
    out.training_rows = training_rows;
    out.drift = drift.measure();
    out.live_users = drift.live_users();
    out.user_cap = user_cap;
    return out;
}

}  // namespace jfp
