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

WasteInput price_job(const JobRequest &r, const HistoryView &h, const ClusterDefaults &defaults, double bundle_budget);

}  // namespace jfp
