// Judging a policy by what it saves: the failed billing-hours (core-hours where slurm.conf sets no
// TRESBillingWeights) the jobs it refuses would have burnt, at a given number of completed jobs it would
// have refused. Ranking by p (decide_by = probability) against ranking by p x cost (decide_by = waste), and
// the waste budget jfp train chooses for a site's limit on wrongly refused jobs per week.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/jobs/billing.h"
#include "model/jobs/job_record.h"

namespace jfp {

struct WasteJob {
    float p = 0;
    double cost = kUnknown;   // billing-hours asked (rate x time limit); NaN: unbounded
    double burnt = kUnknown;  // billing-hours it used (rate x elapsed); NaN: unknown
    int label = 0;            // 1: failed
    int64_t submit = 0;
    double expected_waste() const { return static_cast<double>(p) * cost; }
};

// One finished job as the waste measures see it, billed by rule.
WasteJob waste_job(const JobRecord &j, float p, const BillingRule &rule);

enum class Ranking { Probability, Waste };
const char *ranking_name(Ranking r);

struct RefusalCut {
    size_t refused = 0, wrongly_refused = 0, failed_caught = 0, failed = 0;
    double burnt_caught = 0;  // billing-hours the refused failed jobs burnt
    double burnt_failed = 0;  // billing-hours every failed job burnt
    double burnt_wrongly = 0;  // billing-hours the refused completed jobs used (good work turned away)
    double share() const { return burnt_failed > 0 ? burnt_caught / burnt_failed : 0; }
};

// The jobs a policy refuses, taken from the top of its ranking (whole groups of equal keys, as a threshold
// or a budget takes them) while at most k completed jobs are among them. Ranking::Waste ranks by p x cost;
// a job whose cost is unbounded is refused when p >= threshold, whatever the budget (as the plugin does).
RefusalCut cut_at_wrongly_refused(const std::vector<WasteJob> &jobs, Ranking ranking, double threshold, size_t k);

// One-sided upper confidence bound on a Poisson mean from k events (Wilson-Hilferty; within 2% of the
// exact bound from k = 0 on).
double poisson_upper(size_t k, double confidence = 0.95);

struct BudgetChoice {
    double budget = kUnknown;  // NaN: no budget met the limit
    double limit_per_week = 0;
    double weeks = 0;          // the window's span for the per-week rates (at least a day)
    double span_days = 0;      // the window's span as it is
    RefusalCut at_budget;      // what the budget refuses on the window
    double per_week = 0, per_week_upper = 0;
    bool limit_met = false;
};

// The lowest budget whose refusals on the window (jobs in time order) hold at most limit_per_week completed
// jobs a week by the upper bound (poisson_upper) on the whole window and on each of its halves: the most
// waste caught within the site's limit, claimed only where the bound holds. unbounded_refused: a job
// without a bounded cost at or above the threshold is refused whatever the budget (false when the
// threshold missed its target precision: reject mode then only warns such jobs, reject_below_target aside).
BudgetChoice choose_budget(const std::vector<WasteJob> &jobs, double threshold, double limit_per_week,
                           bool unbounded_refused = true);

// The curve of both policies: at each number of wrongly refused jobs (every distinct count each ranking
// passes, up to max_wrongly), the share of failed billing-hours caught. x: wrongly refused jobs; y: share.
struct WasteCurve {
    std::vector<std::pair<double, double>> by_probability, by_waste;
};
WasteCurve waste_curve(const std::vector<WasteJob> &jobs, double threshold, size_t max_wrongly);

}  // namespace jfp
