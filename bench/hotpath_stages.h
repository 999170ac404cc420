// bench/hotpath's stages of job_submit timed alone, on the same jobs: warm on one thread (and some on a new
// thread per call), then cold (the Evictor's writes before each call): where the call's time goes, and
// which of them the cost measured inside slurmctld is (docs/performance.md §1).
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

#include "bench/hotpath_site.h"
#include "model/scoring/model_bundle.h"

namespace hotpath {

struct StageTimes {
    Stats scan, script_pass, modules_none, modules, features, features_new, score, score_new, copy;
    Stats script_pass_cold, resolve_cold, identity_cold, lookup_cold, build_cold, failure_cold;
};
// profile: one call each (bench/hotpath --profile-hot times job_submit alone).
StageTimes time_stages(const Workload &w, const jfp::ModelBundle &bundle, Evictor &evict, size_t calls, bool profile);
// The table's rows, and the JSON keys bench/run reads.
void print_stages(const StageTimes &t, size_t evict_mib);
void add_stages(nlohmann::json &j, const StageTimes &t);

}  // namespace hotpath
