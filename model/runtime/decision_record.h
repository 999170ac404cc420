// What a decision leaves behind: its line in slurmctld's log, and its row for the feature log (what jfp
// train learns from and jfp monitor compares with outcomes).
#pragma once

#include <memory>

#include "model/jobs/join_token.h"
#include "model/policy/config.h"
#include "model/policy/policy.h"
#include "model/request/judged_request.h"
#include "model/scoring/feature_log.h"
#include "model/scoring/model_bundle.h"

namespace jfp {

// Acted-on (and would-be, in shadow mode) decisions at info level, the rest at debug level (written only
// when slurmctld's debug level asks for it).
void log_decision(const Config &cfg, const JudgedRequest &c, const Decision &d, const std::string &model_id, bool is_update,
                  const JoinToken &token);

// model: the bundle that scored it (the row shares its id, no copy). script: the scan the submit path left
// to the writer's thread.
FeatureLogEntry feature_log_entry(const JudgedRequest &c, const Decision &d, const std::shared_ptr<const ModelBundle> &model,
                                  uint32_t uid, const JoinToken &token, bool is_update, DeferredScript script);

}  // namespace jfp
