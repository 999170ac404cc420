// bench/hotpath's site and jobs: a synthetic history with a model trained on it and the configuration
// slurmctld and jfp read, 2,000 realistic job descriptions drawn from that history, and the timing
// helpers the benchmark's parts share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "model/jobs/cluster_defaults.h"
#include "model/request/submit_request.h"
#include "model/scoring/features.h"
#include "model/snapshot/history_snapshot.h"

namespace hotpath {

double now_ns();

struct Stats {
    double p50 = 0, p99 = 0, p999 = 0, mean = 0;
    size_t n = 0;
};
Stats stats(std::vector<double> v);

struct JobSpec {
    std::string user, name, partition, account, comment, script;
    uint32_t uid = 0;
    uint32_t cpus = 1, nodes = 1, time_min = 60;
    uint64_t mem = 1000;
    jfp::FeatureVector x{};  // what the plugin will compute, for the reference walk
};

struct Site {
    std::string dir, store, model;
};
// A new site in a temporary directory: a history ending a day before today, a model trained on the same
// workload on a fixed calendar (at most 200 rounds of depth 6, as the training benchmark, early-stopped
// as at a site: the same model whatever day it runs), slurm.conf and jfp.conf (annotate mode, a feature
// log); SLURM_CONF points there.
Site build_site(bool quick);
// jfp.conf with the site's model, store and feature log, then `extra`, put in place by rename.
void write_jfp_conf(const Site &site, const std::string &extra = std::string());

struct Workload {
    std::vector<JobSpec> specs;
    jfp::HistorySnapshot snap;  // the site's history, with the specs' uids named
    jfp::ClusterDefaults defaults;
    std::vector<std::string> env_strings;  // an environment as sbatch sends it (~2 KB)
    std::vector<char *> env_ptrs;
};
// `count` jobs: users and names from the history (so lookups hit), scripts of 1-50 KiB, varied requests,
// each with the feature vector the plugin will compute. Adds the users' uids to the store.
Workload make_workload(const Site &site, size_t count);
jfp::SubmitRequest request_of(const JobSpec &s);

// Cold caches, as inside slurmctld, where sbatch, munge and slurmctld's own work run between two
// submissions: before each cold call (untimed) its thread writes `mib` MiB (JFP_BENCH_EVICT_MIB; 64).
class Evictor {
public:
    Evictor();
    void operator()();
    size_t mib() const { return mib_; }

private:
    size_t mib_;
    std::vector<char> buf_;
};

}  // namespace hotpath
