// What slurmctld fills in after job_submit plugins run: the default partition, and each partition's
// default time limit and memory. Read from slurm.conf so that a request the user left unset means at
// submission what sacct later shows (docs/features.md). Slurm-free text parsing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include <string_view>

#include "model/jobs/billing.h"

namespace jfp {

struct PartitionDefaults {
    std::optional<double> default_time_min;  // DefaultTime, else MaxTime
    std::optional<double> def_mem_per_cpu_mb;
    std::optional<double> def_mem_per_node_mb;
    // A job asking no memory where no DefMemPer* applies gets a whole node's: RealMemory less MemSpecLimit of
    // the partition's first node in slurm.conf's order (slurmctld's _mem_per_node_part), per node.
    std::optional<double> node_mem_mb;
    // TRESBillingWeights; unset: billed by CPU. A value Slurm would refuse leaves it unset and is named in
    // ClusterDefaults::problems.
    std::optional<BillingWeights> billing;
    std::optional<double> over_time_min;  // OverTimeLimit (minutes; +inf for UNLIMITED)
    std::optional<double> node_cpus_max;  // the most CPUs a node of the partition has
    bool exclusive = false;               // OverSubscribe=EXCLUSIVE: every job gets whole nodes
};

struct ClusterDefaults {
    std::string default_partition;
    std::map<std::string, PartitionDefaults> partitions;
    std::optional<double> def_mem_per_cpu_mb;   // global DefMemPerCPU
    std::optional<double> def_mem_per_node_mb;  // global DefMemPerNode
    std::string origin;
    // Every file an Include line named (read or not), in order: a change to one is a change to slurm.conf.
    std::vector<std::string> included;
    bool max_tres = false;  // PriorityFlags=MAX_TRES
    double over_time_min = 0;  // the global OverTimeLimit (minutes; +inf for UNLIMITED)
    int64_t max_array_size = 1001;  // MaxArraySize: an --array index must be below it
    // What jfp could not read (a TRESBillingWeights Slurm would refuse): said once in the log and by jfp check.
    std::vector<std::string> problems;

    const PartitionDefaults *partition(std::string_view name) const;
    // How a job in this partition is billed (BillingRule's weights point into this object).
    BillingRule billing_rule(std::string_view partition) const;
};

// Parses slurm.conf text (Include lines are followed relative to base_dir, at most 8 deep). Unknown keys
// are ignored: slurm.conf has hundreds. Node names are expanded up to kMaxConfNodes; past that (or on a
// hostlist it cannot read) a partition's node_mem_mb stays unknown.
inline constexpr size_t kMaxConfNodes = 65536;
ClusterDefaults parse_slurm_conf(std::string_view text, const std::string &base_dir, const std::string &origin);
// Reads a file; a missing file gives empty defaults (and a message in error).
ClusterDefaults load_slurm_conf(const std::string &path, std::string *error);

}  // namespace jfp
