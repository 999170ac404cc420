// The feature vector: one definition, used by the trainer over sacct history and by the plugin over a
// job descriptor. Every feature is named and the schema is versioned: a model bundle records both, and
// the plugin refuses (fails open on) a bundle whose names differ from the code it runs. From schema 2 on
// the list only grows at its end: a bundle or a logged row of an earlier schema whose names are a prefix
// of ours is read with the features it lacks unknown (NaN), so adding a feature does not turn away every
// deployed bundle until the site retrains.
#pragma once

#include <array>
#include <cstdint>

#include "model/script/script_traits.h"
#include "model/history/history.h"
#include "model/jobs/job_request.h"

namespace jfp {

// Bump when a feature's meaning, order or set changes. 2: counts of prior runs capped at kCountCap.
// 3: the script's certain findings appended (script_ignored_sbatch, script_missing_modules).
// 4: the partition's and account's rates (p_, a_) are their users' (HistoryIndex::add_pooled); a bundle of
//    an earlier schema reads them as unknown (kPooledByUserSchema).
inline constexpr int kFeatureSchemaVersion = 4;
inline constexpr int kPooledByUserSchema = 4;
// The oldest schema read as a prefix of ours (feature_count_of_schema).
inline constexpr int kOldestPrefixSchema = 2;
inline constexpr uint32_t kCountCap = 20;

#define JFP_FEATURES(X)                                                                       \
    /* the request */                                                                         \
    X(req_cpus) X(req_nodes) X(req_mem_mb) X(req_mem_per_cpu_mb) X(timelimit_min) X(req_gpus)  \
    X(array_size) X(has_dependency) X(interactive) X(submit_hour) X(submit_weekday)            \
    /* the job script, when known */                                                          \
    X(script_bytes) X(script_lines) X(script_python) X(script_shell) X(script_sbatch_lines)    \
    X(script_module_loads) X(script_srun) X(script_mpirun) X(script_uses_python)              \
    X(script_uses_conda) X(script_set_e)                                                      \
    /* same user + same job name */                                                           \
    X(un_n) X(un_fail_rate) X(un_recent_fail_rate) X(un_last_outcome) X(un_streak)            \
    X(un_hours_since_end) X(un_hours_since_fail) X(un_timeout_rate) X(un_oom_rate)            \
    X(un_cancel_rate) X(un_time_vs_longest_ok) X(un_mem_vs_max_rss)                           \
    X(un_time_vs_last_timeout) X(un_mem_vs_last_oom)                                          \
    /* same user + job name without its number */                                             \
    X(us_n) X(us_fail_rate) X(us_recent_fail_rate) X(us_last_outcome) X(us_streak)            \
    /* same user, any job */                                                                  \
    X(u_n) X(u_fail_rate) X(u_recent_fail_rate) X(u_last_outcome) X(u_streak)                 \
    X(u_hours_since_end) X(u_hours_since_fail)                                                \
    /* everyone's jobs in the partition / account */                                         \
    X(p_fail_rate) X(p_recent_fail_rate) X(a_fail_rate) X(a_recent_fail_rate)                 \
    /* schema 3: what the script shows for certain (model/script), counted where looked for */ \
    X(script_ignored_sbatch) X(script_missing_modules)

enum Feature : int {
#define JFP_ENUM(name) F_##name,
    JFP_FEATURES(JFP_ENUM)
#undef JFP_ENUM
    kNumFeatures
};

using FeatureVector = std::array<float, kNumFeatures>;

const std::array<const char *, kNumFeatures> &feature_names();
// How many features schema `version` had (its names are the first that many of ours); 0 for a schema this
// build cannot read as a prefix (older than kOldestPrefixSchema, or newer than ours).
int feature_count_of_schema(int version);
// -1 when no feature has that name.
int feature_index(const char *name);

// Time limits beyond this many minutes (UNLIMITED among them) are read as this: XGBoost takes no inf.
inline constexpr double kUnlimitedMinutes = 1e7;

// Fills out from the request, its script (if known) and its history. Unknown values are NaN.
// ScriptScan::Later leaves the script features NaN for a caller that fills them afterwards with
// fill_script_features (the plugin, when the model does not use them: the feature-log thread does).
enum class ScriptScan { Now, Later };
void build_features(const JobRequest &req, const HistoryView &history, FeatureVector &out,
                    ScriptScan scan = ScriptScan::Now);
void fill_script_features(const ScriptTraits &traits, FeatureVector &out);

// A JobRequest as sacct describes the job (no script: exports do not carry it).
JobRequest request_from_record(const JobRecord &job);

}  // namespace jfp
