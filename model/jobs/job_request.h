// What is known about a job at the moment it is submitted: the common language of the trainer (which
// rebuilds it from a sacct row) and the plugin (which builds it from Slurm's job descriptor).
// No Slurm types here; unknown numbers are NaN so both sides can say "not given" the same way.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace jfp {

inline constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

inline bool known(double v) { return !std::isnan(v); }

struct JobRequest {
    std::string user;
    std::string account;    // empty: not given (the plugin resolves defaults; see docs/features.md)
    std::string partition;  // may be a comma list; the first one is used
    std::string qos;
    std::string name;
    // Seconds since 1970 of the wall-clock time in the cluster's local zone, read as if it were UTC
    // ("naive local"): sacct prints local times without a zone, so this is what both sides can agree on.
    int64_t submit_time = 0;

    double req_cpus = kUnknown;
    double req_nodes = kUnknown;
    double req_mem_mb = kUnknown;  // total for the job
    double timelimit_min = kUnknown;  // +inf for UNLIMITED
    double req_gpus = kUnknown;
    double array_size = 1;  // tasks in the array this job belongs to; 1 for plain jobs
    double has_dependency = kUnknown;  // 1/0; unknown when sacct has no SubmitLine
    double interactive = kUnknown;     // 1 for salloc/srun (no script), 0 for sbatch
    // Submitted (or updated) by root or SlurmUser: warned where others are rejected, unless the admin sets
    // reject_privileged (an admin's test job or a service account's must not be refused by surprise).
    bool privileged = false;
    // --exclusive: whole nodes, every CPU of them billed (model/jobs/billing.h). Not in sacct's exports: false there.
    bool exclusive = false;

    // Job script text, when known (sbatch at submit time; sacct exports do not carry it). Views into
    // memory owned by the caller: the plugin must not copy a 4 MiB script per call.
    std::string_view script;
    bool script_known = false;
    std::string_view submit_line;
    // What the script shows for certain (model/script), where it was looked for; NaN where not: #SBATCH
    // lines sbatch ignored (count_ignored_directives), and module loads the site's index lacks (the plugin
    // alone has the index at submission; the trainer reads that count from the feature log).
    double script_ignored_sbatch = kUnknown;
    double script_missing_modules = kUnknown;
    // The script's identity beyond the job's name (model/script/script_fingerprint.h); 0: none known.
    uint64_t script_fingerprint = 0;
    std::string_view work_dir;
};

}  // namespace jfp
