// A job as job_submit sees it, before slurmctld applies defaults: the plugin's adapter copies Slurm's
// job descriptor into this (no Slurm types), and resolve_request() fills in what slurmctld will, so that
// features mean the same thing at submission as they do later in sacct (docs/features.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/snapshot/history_snapshot.h"
#include "model/jobs/cluster_defaults.h"
#include "model/jobs/job_request.h"

namespace jfp {

struct SubmitRequest {
    uint32_t uid = 0;
    std::string_view name, account, partition, qos;
    std::string_view comment, script, submit_line, dependency, array_inx, work_dir;
    // The submit environment (sbatch only), as Slurm holds it: env_count "NAME=value" strings.
    const char *const *env = nullptr;
    size_t env_count = 0;
    std::string_view tres_per_node, tres_per_job, tres_per_task, tres_per_socket;
    double min_cpus = kUnknown;   // NaN: not given
    double num_tasks = kUnknown;
    double cpus_per_task = kUnknown;
    double min_nodes = kUnknown;
    double time_limit_min = kUnknown;  // +inf: UNLIMITED
    double mem_mb = kUnknown;          // as given
    bool mem_per_cpu = false;          // mem_mb is per CPU (else per node)
    bool has_script = false;
    bool exclusive = false;            // --exclusive (whole nodes)
    int64_t submit_time = 0;  // naive local; 0: now
    // slurm.conf's max_script_size as it reads now (0: Slurm's default). It bounds only what the script
    // archive keeps of a script, never whether the job is judged.
    size_t max_script_size = 0;
};

// user: the name the uid resolves to (from the history store or the password database).
JobRequest resolve_request(const SubmitRequest &s, const std::string &user, const ClusterDefaults &defaults,
                           const HistorySnapshot *history);

}  // namespace jfp
