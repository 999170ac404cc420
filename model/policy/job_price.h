// What decide_by = waste needs of a job besides its score: its cost as slurmctld will bill it, in the site's
// unit, with memory never below what the user's earlier runs of the job used (a request Slurm may not
// enforce must not make a job look cheap). One function, so the plugin, jfp simulate and jfp predict price a
// job alike.
#pragma once

#include "model/history/history.h"
#include "model/jobs/cluster_defaults.h"
#include "model/jobs/job_request.h"
#include "model/policy/policy.h"

namespace jfp {

// bundle_unit: the unit the bundle's budget was chosen in; a budget in another unit than this partition is
// priced in is not used (a core-hours budget against billing-hours would act at random).
WasteInput price_job(const JobRequest &r, const HistoryView &h, const ClusterDefaults &defaults, double bundle_budget,
                     const std::string &bundle_unit = "");

}  // namespace jfp
