// A request as the engine judged it: resolved, its history looked up, its features, score and decision. An
// update's records that are judged on the same inputs share one (update_rpc.h).
#pragma once

#include "model/history/history.h"
#include "model/jobs/job_request.h"
#include "model/policy/policy.h"
#include "model/scoring/features.h"
#include "model/scoring/model_bundle.h"

namespace jfp {

struct JudgedRequest {
    JobRequest r;
    HistoryView hv;  // points into the history snapshot it was looked up in
    FeatureVector x;
    Score s;
    Decision d;
};

}  // namespace jfp
