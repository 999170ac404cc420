// The deployed model on live traffic: what the plugin scored at submission (the feature log) joined to the
// outcomes ingested since, per day or week, and the drift of live features from the training window.
// Shared by `jfp monitor` and the live section of `jfp report`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/store/history_store.h"
#include "model/scoring/model_bundle.h"
#include "tools/monitor/capped_drift.h"
#include "tools/monitor/user_capped.h"

namespace jfp {

struct LivePeriod {
    uint64_t scored = 0, with_outcome = 0, failed = 0, flagged = 0, tp = 0;
    double sum_p = 0;  // over jobs with an outcome
    // Core-hours (elapsed x CPUs) of the jobs with an outcome: burnt by failed jobs, by the flagged ones among
    // them (what acting on them would have saved), and used by flagged jobs that completed.
    double failed_hours = 0, flagged_failed_hours = 0, flagged_completed_hours = 0;
    double precision() const { return flagged ? static_cast<double>(tp) / static_cast<double>(flagged) : -1; }
    double recall() const { return failed ? static_cast<double>(tp) / static_cast<double>(failed) : -1; }
    double mean_predicted() const { return with_outcome ? sum_p / static_cast<double>(with_outcome) : -1; }
    double observed() const { return with_outcome ? static_cast<double>(failed) / static_cast<double>(with_outcome) : -1; }
    // By uid: flagged jobs and true positives (precision), failed jobs and true positives (recall).
    std::map<uint32_t, UserShare> precision_by_user, recall_by_user;
    void add_outcome(uint32_t uid, bool failed, bool flagged, double p_fail, double core_hours);
    CappedRatio precision_capped(double cap) const { return capped_ratio(precision_by_user, cap); }
    CappedRatio recall_capped(double cap) const { return capped_ratio(recall_by_user, cap); }
};

struct LiveSummary {
    std::map<int64_t, LivePeriod> periods;  // by the period's first day (naive-local seconds)
    LivePeriod total;
    uint64_t scored_by_other_models = 0;
    std::string window_start, window_end;  // the bundle's training window
    size_t training_rows = 0;
    std::vector<FeatureDrift> drift;  // features the model uses, largest plain PSI first
    size_t live_users = 0;            // distinct uids among the scored jobs
    double user_cap = kDefaultUserCap;
};

// A job counts as flagged when its p reached the logged threshold or the plugin warned or rejected it (with
// decide_by = waste, a job over the budget below the threshold; in shadow or annotate mode such a job is
// not told apart).
// Users are told apart by the uid the plugin logged (Slurm's authenticated submitter); each user's jobs are
// capped at user_cap in the capped figures (user_capped.h).
// Throws with what to do when the log cannot be read, holds nothing since `since`, or the bundle has no
// training window.
LiveSummary summarize_live(const HistoryStore &store, const ModelBundle &bundle, const std::string &feature_log,
                           int64_t since, bool weekly, double user_cap = kDefaultUserCap);

}  // namespace jfp
