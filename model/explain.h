// Plain-words reasons for a prediction, from the failure model's per-feature contributions: "your last
// 3 runs of 'wrf_run' failed", "it requests 2.0G; runs of 'x' ran out of memory with 2.0G", and what
// to do about it.
#pragma once

#include <string>

#include "features.h"
#include "history.h"
#include "job_request.h"
#include "tree_ensemble.h"

namespace jfp {

// Up to max_reasons reasons joined with "; ", from the themes that pushed the score up most.
std::string explain(const TreeEnsemble &model, const FeatureVector &x, const JobRequest &r, const HistoryView &h,
                    int top_class, size_t max_reasons = 2);

// What the user can do, for the likely failure class (index into kFailureClassOutcomes).
std::string advice(int top_class, const JobRequest &r);

// "2.0G", "512M"; "1-02:03" style for minutes.
std::string format_mb(double mb);
std::string format_minutes(double minutes);

}  // namespace jfp
