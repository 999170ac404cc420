#include "tools/simulate/policy_replay.h"

#include <algorithm>

#include "model/history/history.h"
#include "model/policy/job_price.h"
#include "model/scoring/feature_sweep.h"

namespace jfp {

std::vector<SimulatedJob> replay_policy(const HistoryStore &store, const ModelBundle &bundle, const Config &cfg,
                                        int64_t after, const std::vector<int64_t> &trusted_uids,
                                        const ClusterDefaults &defaults) {
    std::vector<SimulatedJob> out;
    sweep_submissions(store, [&](const Submission &sub) {
        const JobRecord &j = sub.job;
        if (j.submit < after) return;
        JobRequest r = sub.request;
        r.privileged = j.user == "root" ||
                       (j.uid >= 0 && std::find(trusted_uids.begin(), trusted_uids.end(), j.uid) != trusted_uids.end());
        Score s = bundle.score(sub.x);
        Decision d;
        // Comments are not in the store: an override (jfp:override) a user wrote is not seen.
        WasteInput w = price_job(r, sub.history, defaults, bundle.waste_budget(), bundle.waste_unit());
        apply_policy(cfg, r, sub.history, "", bundle.threshold(), s, d, bundle.below_target(), &w);
        SimulatedJob o;
        o.job_key = j.job_key;
        o.token = j.jfp_token;
        o.user = j.user;
        o.partition = j.partition.empty() ? "(none)" : std::string(first_partition(j.partition));
        o.p_fail = s.p_fail;
        o.action = d.action;
        o.above = d.flagged;
        o.by_waste = d.by_waste;
        o.over_budget = d.over_budget;
        o.cheap = d.cheap;
        o.cost = w.cost;
        o.expected_waste = d.expected_waste;
        o.unit = w.unit;
        o.labeled = is_labeled(j.outcome);
        o.failed = is_failure(j.outcome);
        if (known(j.elapsed_s) && known(j.req_cpus)) o.core_hours = j.elapsed_s * j.req_cpus / 3600.0;
        o.request = std::move(r);
        out.push_back(std::move(o));
    });
    return out;
}

}  // namespace jfp
