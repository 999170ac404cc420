#include "model/scoring/features.h"

#include <cmath>
#include <cstring>
#include <algorithm>
#include <limits>

#include "model/script/ignored_directives.h"
#include "model/util/time_util.h"

namespace jfp {

namespace {
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

float f(double v) { return std::isnan(v) ? kNaN : static_cast<float>(v); }

float rate(uint32_t num, uint32_t den) { return den == 0 ? kNaN : static_cast<float>(num) / static_cast<float>(den); }

float hours_since(int64_t now, int64_t then) {
    if (then <= 0) return kNaN;
    return static_cast<float>(static_cast<double>(now - then) / 3600.0);
}

float last_outcome(const HistoryStats *h) {
    return (h == nullptr || h->last_evident == 255) ? kNaN : static_cast<float>(h->last_evident);
}

// A kind of failure's share of the runs: its share of the failed jobs times the failed runs' weighed share,
// so cheap completions dilute it no more than they dilute the failure rate.
float kind_rate(uint32_t kind, const HistoryStats &h, double fail_rate) {
    if (h.n_labeled == 0) return kNaN;
    return h.n_fail == 0 ? 0.0f : static_cast<float>(static_cast<double>(kind) / h.n_fail * fail_rate);
}

// Counts of prior jobs grow for as long as a site keeps history: uncapped, every later job lies beyond
// what the model was trained on. Past kCountCap, more runs say nothing new.
float capped(uint32_t n) { return static_cast<float>(std::min<uint32_t>(n, kCountCap)); }

float ratio(double num, double den) {
    if (std::isnan(num) || std::isnan(den) || den <= 0) return kNaN;
    return static_cast<float>(num / den);
}
}  // namespace

const std::array<const char *, kNumFeatures> &feature_names() {
    static const std::array<const char *, kNumFeatures> names = {
#define JFP_NAME(name) #name,
        JFP_FEATURES(JFP_NAME)
#undef JFP_NAME
    };
    return names;
}

int feature_count_of_schema(int version) {
    switch (version) {
        case 2: return F_script_ignored_sbatch;
        case 3: return kNumFeatures;
        case kFeatureSchemaVersion: return kNumFeatures;
        default: return 0;
    }
}

int feature_index(const char *name) {
    const auto &n = feature_names();
    for (int i = 0; i < kNumFeatures; ++i)
        if (std::strcmp(n[static_cast<size_t>(i)], name) == 0) return i;
    return -1;
}

void fill_script_features(const ScriptTraits &t, FeatureVector &out) {
    out[F_script_bytes] = f(t.bytes);
    out[F_script_lines] = f(t.lines);
    out[F_script_python] = f(t.interp_python);
    out[F_script_shell] = f(t.interp_shell);
    out[F_script_sbatch_lines] = f(t.sbatch_directives);
    out[F_script_module_loads] = f(t.module_loads);
    out[F_script_srun] = f(t.srun);
    out[F_script_mpirun] = f(t.mpirun);
    out[F_script_uses_python] = f(t.uses_python);
    out[F_script_uses_conda] = f(t.uses_conda);
    out[F_script_set_e] = f(t.set_e);
}

void build_features(const JobRequest &r, const HistoryView &h, FeatureVector &out, ScriptScan scan) {
    out.fill(kNaN);
    out[F_req_cpus] = f(r.req_cpus);
    out[F_req_nodes] = f(r.req_nodes);
    out[F_req_mem_mb] = f(r.req_mem_mb);
    out[F_req_mem_per_cpu_mb] = ratio(r.req_mem_mb, r.req_cpus);
    double tl = r.timelimit_min;
    if (!std::isnan(tl) && tl > kUnlimitedMinutes) tl = kUnlimitedMinutes;
    out[F_timelimit_min] = f(tl);
    out[F_req_gpus] = f(r.req_gpus);
    out[F_array_size] = f(r.array_size);
    out[F_has_dependency] = f(r.has_dependency);
    out[F_interactive] = f(r.interactive);
    out[F_submit_hour] = static_cast<float>(hour_of_day(r.submit_time));
    out[F_submit_weekday] = static_cast<float>(weekday(r.submit_time));

    if (r.script_known && scan == ScriptScan::Now) fill_script_features(scan_script(r.script), out);
    // The findings: the plugin found them before scoring (it acts on them); the trainer, which has the
    // archived script but not the module index the plugin had then, counts the ignored lines here alike.
    double ignored = r.script_ignored_sbatch;
    if (std::isnan(ignored) && r.script_known && scan == ScriptScan::Now) ignored = count_ignored_directives(r.script);
    out[F_script_ignored_sbatch] = f(ignored);
    out[F_script_missing_modules] = f(r.script_missing_modules);

    const int64_t now = r.submit_time;
    // Absent history is "zero prior runs", not unknown: the model must learn what a first run looks like.
    out[F_un_n] = out[F_un_streak] = 0;
    out[F_us_n] = out[F_us_streak] = 0;
    out[F_u_n] = out[F_u_streak] = 0;
    if (const HistoryStats *un = h.user_name) {
        out[F_un_n] = capped(un->n);
        const HistoryStats::RunEvidence un_runs = un->runs();
        out[F_un_fail_rate] = f(un_runs.fail_rate);
        out[F_un_recent_fail_rate] = f(un_runs.recent_fail_rate);
        out[F_un_last_outcome] = last_outcome(un);
        out[F_un_streak] = static_cast<float>(un_runs.streak);
        out[F_un_hours_since_end] = hours_since(now, un->last_end);
        out[F_un_hours_since_fail] = hours_since(now, un->last_fail_end);
        out[F_un_timeout_rate] = kind_rate(un->n_timeout, *un, un_runs.fail_rate);
        out[F_un_oom_rate] = kind_rate(un->n_oom, *un, un_runs.fail_rate);
        out[F_un_cancel_rate] = rate(un->n_cancel, un->n);
        if (un->max_ok_elapsed_s > 0) out[F_un_time_vs_longest_ok] = ratio(tl * 60.0, un->max_ok_elapsed_s);
        if (un->max_rss_mb > 0) out[F_un_mem_vs_max_rss] = ratio(r.req_mem_mb, un->max_rss_mb);
        if (un->last_fail_timelimit_min > 0) out[F_un_time_vs_last_timeout] = ratio(tl, un->last_fail_timelimit_min);
        if (un->last_oom_req_mem_mb > 0) out[F_un_mem_vs_last_oom] = ratio(r.req_mem_mb, un->last_oom_req_mem_mb);
    }
    if (const HistoryStats *us = h.user_stem) {
        out[F_us_n] = capped(us->n);
        const HistoryStats::RunEvidence us_runs = us->runs();
        out[F_us_fail_rate] = f(us_runs.fail_rate);
        out[F_us_recent_fail_rate] = f(us_runs.recent_fail_rate);
        out[F_us_last_outcome] = last_outcome(us);
        out[F_us_streak] = static_cast<float>(us_runs.streak);
    }
    if (const HistoryStats *u = h.user) {
        out[F_u_n] = capped(u->n);
        const HistoryStats::RunEvidence u_runs = u->runs();
        out[F_u_fail_rate] = f(u_runs.fail_rate);
        out[F_u_recent_fail_rate] = f(u_runs.recent_fail_rate);
        out[F_u_last_outcome] = last_outcome(u);
        out[F_u_streak] = static_cast<float>(u_runs.streak);
        out[F_u_hours_since_end] = hours_since(now, u->last_end);
        out[F_u_hours_since_fail] = hours_since(now, u->last_fail_end);
    }
    // A partition's or account's rates are its users' (HistoryIndex::add_pooled), read from kMinPoolUsers
    // users on: with fewer, one user is most of the number.
    if (const HistoryStats *p = h.partition; p && p->w_all >= kMinPoolUsers) {
        const HistoryStats::RunEvidence runs = p->runs();
        out[F_p_fail_rate] = f(runs.fail_rate);
        out[F_p_recent_fail_rate] = f(runs.recent_fail_rate);
    }
    if (const HistoryStats *a = h.account; a && a->w_all >= kMinPoolUsers) {
        const HistoryStats::RunEvidence runs = a->runs();
        out[F_a_fail_rate] = f(runs.fail_rate);
        out[F_a_recent_fail_rate] = f(runs.recent_fail_rate);
    }
}

JobRequest request_from_record(const JobRecord &j) {
    JobRequest r;
    r.user = j.user;
    r.account = j.account;
    r.partition = j.partition;
    r.qos = j.qos;
    r.name = j.name;
    r.submit_time = j.submit;
    r.req_cpus = j.req_cpus;
    r.req_nodes = j.req_nodes;
    r.req_mem_mb = j.req_mem_mb;
    r.timelimit_min = j.timelimit_min;
    r.req_gpus = j.req_gpus;
    r.array_size = j.array_size;
    r.has_dependency = j.has_dependency;
    r.interactive = j.interactive;
    r.submit_line = j.submit_line;
    r.script_fingerprint = j.script_fingerprint;
    return r;
}

}  // namespace jfp
