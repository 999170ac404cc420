// What jfp.conf would have done: the jobs submitted since a time, scored as the plugin scored them at their
// submission (history only from jobs that ended before) and passed through the same policy (mode,
// thresholds, exemptions, min_history, privileged users). What `jfp simulate` prints before an admin
// switches warn to reject.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/store/history_store.h"
#include "model/jobs/cluster_defaults.h"
#include "model/policy/config.h"
#include "model/policy/policy.h"
#include "model/scoring/model_bundle.h"

namespace jfp {

struct SimulatedJob {
    std::string job_key, token, user, partition;
    float p_fail = 0;
    Action action = Action::None;
    bool above = false;  // flagged: at or above the threshold or, with decide_by = waste, over the budget
    bool labeled = false, failed = false;  // finished as COMPLETED or a failure; which
    double core_hours = -1;                // elapsed x CPUs; -1 unknown
    // decide_by = waste: its cost and expected waste in `unit`, and whether that reached the budget.
    bool by_waste = false, over_budget = false, cheap = false;
    double cost = kUnknown, expected_waste = kUnknown;
    const char *unit = "core-hours";
    JobRequest request;                    // as the plugin saw it (privileged set from trusted_uids)
    // What the archived script shows (tools/simulate/script_replay.h); all false when not replayed.
    bool script_archived = false, ignored_sbatch = false, missing_module = false;
    Action script_action = Action::None;  // what ignored_directives / missing_modules would have done
};

// trusted_uids: root and SlurmUser, warned rather than rejected unless reject_privileged. defaults: slurm.conf
// as the plugin reads it (TRESBillingWeights, OverTimeLimit), pricing jobs for decide_by = waste.
std::vector<SimulatedJob> replay_policy(const HistoryStore &store, const ModelBundle &bundle, const Config &cfg,
                                        int64_t after, const std::vector<int64_t> &trusted_uids,
                                        const ClusterDefaults &defaults = ClusterDefaults{});

}  // namespace jfp
