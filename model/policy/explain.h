// Plain-words reasons for a prediction, from the failure model's per-feature contributions ("your last
// 3 runs of 'wrf_run' failed"), and what to do about it.
//
// The rule: a sentence about the past states only what the history view holds, with its numbers, and a
// theme with no such evidence says nothing. No name is quoted that the request did not give; no "last
// run" is mentioned where there was none. test/replay/check_messages.py checks every sentence of every
// message of whole replays against the store, independently of this code.
#pragma once

#include <string>

#include "model/history/history.h"
#include "model/jobs/job_request.h"
#include "model/scoring/features.h"
#include "model/scoring/model_bundle.h"
#include "model/scoring/tree_ensemble.h"

namespace jfp {

// Up to max_reasons reasons joined with "; ", from the themes that pushed the score up most.
std::string explain(const TreeEnsemble &model, const FeatureVector &x, const JobRequest &r, const HistoryView &h,
                    int top_class, size_t max_reasons = 2);
// The same for the bundle's failure score: a tree model's contributions, or the history a rule read.
std::string explain(const ModelBundle &model, const FeatureVector &x, const JobRequest &r, const HistoryView &h,
                    int top_class, size_t max_reasons = 2);

// "2.0G", "512M"; "1-02:03:00" style for minutes.
std::string format_mb(double mb);
std::string format_minutes(double minutes);
// How long a run took, as sacct shows Elapsed ("00:01:15", "1-02:03:04"): whole seconds, rounded up, so a
// run is never said to have taken less than it did.
std::string format_seconds(double seconds);
// How much memory a run used ("2.2G"): format_mb's units, rounded up to the digit shown, never below it.
std::string format_mb_used(double mb);

}  // namespace jfp
