// jfp simulate's work: what a jfp.conf and a model would have done to the jobs submitted since a time
// (policy_replay.h, script_replay.h), tallied overall, per user and per partition with the core-hours at
// stake, printed, and each job's action written as CSV when asked.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/policy/config.h"
#include "model/script/module_index.h"
#include "tools/simulate/policy_replay.h"

namespace jfp {

struct SimulateOptions {
    std::string conf_path;        // the jfp.conf replayed (named in the summary)
    Config config;                // its policy (mode already replaced when mode_overridden)
    bool mode_overridden = false;  // --mode
    std::string slurm_conf;       // SlurmUser (trusted, not rejected) and the billing weights
    std::string db, model;
    int64_t after = 0;            // first submit time replayed
    std::string jobs_csv;         // non-empty: every job's score and action written here
    size_t top = 15;              // rows per table
    // The site's module index, for the archived scripts' module loads; null with why_no_modules set
    // when there is none (then only ignored #SBATCH lines are judged).
    std::shared_ptr<const ModuleIndex> modules;
    std::string why_no_modules;
};

// What a set of jobs met: the actions, and of those warned or rejected, the finished ones and their core-hours.
struct PolicyTally {
    uint64_t jobs = 0, rejected = 0, warned = 0, annotated = 0, acted_failed = 0, acted_completed = 0;
    double failed_core_h = 0, good_core_h = 0;  // of the jobs warned or rejected
    uint64_t acted() const { return rejected + warned; }
    void add(const SimulatedJob &j);
};

struct Simulation {
    std::vector<SimulatedJob> jobs;
    PolicyTally all;
    std::map<std::string, PolicyTally> by_user, by_partition;
    std::string scripts_note;  // why the script findings (or their module loads) were not replayed; empty when they were
};

// The jobs replayed and tallied. trusted_uids: root and SlurmUser. Throws when no job was submitted at or
// after `after`.
Simulation simulate_policy(const HistoryStore &store, const ModelBundle &bundle, const SimulateOptions &o,
                           const std::vector<int64_t> &trusted_uids, const ClusterDefaults &defaults);

// jfp simulate: opens the store and the model, replays, prints the summary and writes the CSV.
void run_simulate(const SimulateOptions &o);

}  // namespace jfp
