#include "model/policy/job_price.h"

namespace jfp {

WasteInput price_job(const JobRequest &r, const HistoryView &h, const ClusterDefaults &defaults, double bundle_budget,
                     const std::string &bundle_unit) {
    WasteInput w;
    const BillingRule rule = defaults.billing_rule(r.partition);
    const double used = h.user_name && h.user_name->max_rss_mb > 0 ? static_cast<double>(h.user_name->max_rss_mb) : kUnknown;
    w.unit = rule.unit();
    w.cost = request_cost(r, rule, used);
    w.bundle_budget = bundle_unit.empty() || bundle_unit == w.unit ? bundle_budget : kUnknown;
    if (known(used) && rule.weights && rule.weights->mem_per_mb != 0 && (!known(r.req_mem_mb) || used > r.req_mem_mb))
        w.mem_priced_mb = used;
    return w;
}

}  // namespace jfp
