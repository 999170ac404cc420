// What a job costs in the site's own units: slurm.conf's TRESBillingWeights of its partition (CPU, memory,
// GPUs, nodes), else its CPUs, times its time limit. What a failure of the job can waste at most, known at
// submission and the same from sacct afterwards. No Slurm types.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/jobs/job_request.h"

namespace jfp {

// A partition's TRESBillingWeights="CPU=1.0,Mem=0.25G,GRES/gpu=2.0". Memory's base unit is MB; a K/M/G/T/P
// suffix on its weight scales it (Mem=0.25G: 0.25 per GiB). A TRES the list leaves out bills nothing.
struct BillingWeights {
    double cpu = 0;
    double mem_per_mb = 0;
    double gpu = 0;   // GRES/gpu, any type
    double node = 0;
    // TRES jfp cannot count at submission (licenses, burst buffers, other GRES) have a weight: a job's
    // bill is then at least what jfp counts, and may be more.
    bool uncounted = false;
};

// nullopt (and a message in error) for text Slurm would refuse: a pair without '=', a weight that is not
// a number, a suffix on a TRES other than memory and burst buffers.
std::optional<BillingWeights> parse_billing_weights(std::string_view text, std::string *error = nullptr);

// How a request is billed: a partition's weights when slurm.conf gives them, else by CPU (Slurm's rule).
// max_tres: PriorityFlags=MAX_TRES (the largest weighted TRES on a node, not their sum).
struct BillingRule {
    const BillingWeights *weights = nullptr;
    bool max_tres = false;
    // slurm.conf's OverTimeLimit (the partition's, else the global one): minutes a job may run past its limit
    // before it is killed, so part of what a failure can waste; +inf for UNLIMITED.
    double over_time_min = 0;
    // A job with whole nodes (--exclusive, or OverSubscribe=EXCLUSIVE: whole_nodes) is billed every CPU of
    // them: the partition's largest node's CPUs (NaN: unknown, then its request).
    double node_cpus = kUnknown;
    bool whole_nodes = false;
    // The words a user and an admin read: "core-hours" when billed by CPU, "billing-hours" otherwise.
    const char *unit() const { return weights ? "billing-hours" : "core-hours"; }
};

// Billing units per hour the request holds; NaN when an amount it bills is unknown (never read as zero).
// mem_floor_mb: memory the request is billed at least for (what its runs were seen to use where memory is
// not enforced); NaN for none.
double billing_per_hour(const JobRequest &r, const BillingRule &rule, double mem_floor_mb = kUnknown);

// The request's whole cost: billing_per_hour x (its time limit + OverTimeLimit) in hours. NaN when unknown or
// unbounded (UNLIMITED, or past kMaxCostMinutes): such a job's waste cannot be bounded, so it is never "cheap".
inline constexpr double kMaxCostMinutes = 366.0 * 24 * 60;
double request_cost(const JobRequest &r, const BillingRule &rule, double mem_floor_mb = kUnknown);

}  // namespace jfp
