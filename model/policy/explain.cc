#include "model/policy/explain.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

std::string format_mb(double mb) {
    char buf[32];
    if (mb >= 1024 * 1024) std::snprintf(buf, sizeof buf, "%.1fT", mb / 1024 / 1024);
    else if (mb >= 1024) std::snprintf(buf, sizeof buf, "%.1fG", mb / 1024);
    else std::snprintf(buf, sizeof buf, "%.0fM", mb);
    return buf;
}

std::string format_seconds(double seconds) {
    if (!(seconds >= 0)) seconds = 0;
    if (seconds > 1e12) seconds = 1e12;  // past any run: no overflow in the cast
    long s = static_cast<long>(std::ceil(seconds - 1e-9));
    char buf[40];
    if (s >= 86400) std::snprintf(buf, sizeof buf, "%ld-%02ld:%02ld:%02ld", s / 86400, s / 3600 % 24, s / 60 % 60, s % 60);
    else std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    return buf;
}

std::string format_mb_used(double mb) {
    auto up = [](double v) { return std::ceil(v * 10 - 1e-9) / 10; };
    char buf[32];
    if (mb >= 1024 * 1024) std::snprintf(buf, sizeof buf, "%.1fT", up(mb / 1024 / 1024));
    else if (mb >= 1024) std::snprintf(buf, sizeof buf, "%.1fG", up(mb / 1024));
    else std::snprintf(buf, sizeof buf, "%.0fM", std::ceil(mb - 1e-9));
    return buf;
}

std::string format_minutes(double minutes) {
    if (std::isinf(minutes) || minutes >= kUnlimitedMinutes) return "UNLIMITED";
    long m = std::lround(minutes);
    char buf[32];
    if (m >= 1440) std::snprintf(buf, sizeof buf, "%ld-%02ld:%02ld:00", m / 1440, m / 60 % 24, m % 60);
    else std::snprintf(buf, sizeof buf, "%02ld:%02ld:00", m / 60, m % 60);
    return buf;
}


namespace {

enum Theme { kUserName, kTime, kMemory, kUserStem, kUser, kPartition, kAccount, kScript, kFindings, kRequest, kThemes };

Theme theme_of(int f) {
    switch (f) {
        case F_un_n: case F_un_fail_rate: case F_un_recent_fail_rate: case F_un_last_outcome: case F_un_streak:
        case F_un_hours_since_end: case F_un_hours_since_fail: case F_un_cancel_rate:
            return kUserName;
        case F_timelimit_min: case F_un_time_vs_longest_ok: case F_un_time_vs_last_timeout: case F_un_timeout_rate:
            return kTime;
        case F_req_mem_mb: case F_req_mem_per_cpu_mb: case F_un_mem_vs_max_rss: case F_un_mem_vs_last_oom:
        case F_un_oom_rate:
            return kMemory;
        case F_us_n: case F_us_fail_rate: case F_us_recent_fail_rate: case F_us_last_outcome: case F_us_streak:
            return kUserStem;
        case F_u_n: case F_u_fail_rate: case F_u_recent_fail_rate: case F_u_last_outcome: case F_u_streak:
        case F_u_hours_since_end: case F_u_hours_since_fail:
            return kUser;
        case F_p_fail_rate: case F_p_recent_fail_rate: return kPartition;
        case F_a_fail_rate: case F_a_recent_fail_rate: return kAccount;
        case F_script_ignored_sbatch: case F_script_missing_modules: return kFindings;
        default:
            if (f >= F_script_bytes && f <= F_script_set_e) return kScript;
            return kRequest;
    }
}

// Names as users see them: control characters shown as \xNN (a job name may hold a newline), cut at 40.
std::string quoted(const std::string &s) { return quote_for_message(s, 40); }

int recent_failures(const HistoryStats &s) { return __builtin_popcount(s.recent); }

// "your last 3 runs of 'x' failed" and its kin, from a series' labeled runs (completed or failed, in end
// order). Runs that were cancelled, preempted or requeued are not in the counts; when the series has
// any, the sentence says so. Nothing when the series shows no failure.
std::optional<std::string> runs_failed(const HistoryStats &s, const std::string &what) {
    if (s.n_labeled == 0 || s.n_fail == 0) return std::nullopt;
    const char *qualifier = s.n > s.n_labeled ? " (counting only runs that completed or failed)" : "";
    char buf[320];
    if (s.streak >= 2) {
        std::snprintf(buf, sizeof buf, "your last %u runs of %s failed%s", s.streak, what.c_str(), qualifier);
    } else if (s.streak == 1) {
        std::snprintf(buf, sizeof buf, "your last run of %s failed%s", what.c_str(), qualifier);
    } else if (recent_failures(s) > 0) {
        std::snprintf(buf, sizeof buf, "%d of your last %u runs of %s failed%s", recent_failures(s),
                      static_cast<unsigned>(s.recent_n), what.c_str(), qualifier);
    } else {
        std::snprintf(buf, sizeof buf, "%u of your %u earlier runs of %s failed%s", s.n_fail, s.n_labeled,
                      what.c_str(), qualifier);
    }
    return std::string(buf);
}

// "3 of the last 10 completed or failed jobs in partition 'p' failed": everyone's jobs, so always qualified.
std::optional<std::string> shared_failures(const HistoryStats *s, const char *what, const std::string &name) {
    if (s == nullptr || name.empty() || s->recent_n == 0 || recent_failures(*s) == 0) return std::nullopt;
    char buf[320];
    std::snprintf(buf, sizeof buf, "%d of the last %u completed or failed jobs %s %s failed", recent_failures(*s),
                  static_cast<unsigned>(s->recent_n), what, quoted(name).c_str());
    return std::string(buf);
}

bool has_time_limit(const JobRequest &r) { return known(r.timelimit_min) && r.timelimit_min > 0; }
bool has_mem(const JobRequest &r) { return known(r.req_mem_mb) && r.req_mem_mb > 0; }

// A reason for the theme, or nothing when the history gives no concrete evidence for it. Sentences that
// speak of the model ("the model associates...") are its own reading, and are only given when the
// request has the value they name.
std::optional<std::string> reason(Theme t, const JobRequest &r, const HistoryView &h, int top_class) {
    const bool named = !r.name.empty();
    // What user_name's runs are runs of: the job's name, or its script run under other names.
    const std::string name = h.name_from_script ? std::string("this script") : quoted(r.name);
    const HistoryStats *un = named ? h.user_name : nullptr;
    switch (t) {
        case kUserName:
            if (!named) return std::nullopt;
            if (un) return runs_failed(*un, name);
            return "no earlier run of " + name + " has finished yet";
        case kTime: {
            std::string asks = has_time_limit(r) ? "it asks for " + format_minutes(r.timelimit_min) + "; " : "";
            if (un && un->last_fail_timelimit_min > 0)
                return asks + "your last run of " + name + " that hit its time limit had " +
                       format_minutes(un->last_fail_timelimit_min);
            if (un && un->max_ok_elapsed_s > 0 && has_time_limit(r) &&
                un->max_ok_elapsed_s / 60.0 > 0.8 * r.timelimit_min)
                return asks + "your longest successful run of " + name + " took " + format_seconds(un->max_ok_elapsed_s);
            if (top_class == 1 && has_time_limit(r))
                return "it asks for " + format_minutes(r.timelimit_min) + ", a time limit the model associates with timeouts";
            return std::nullopt;
        }
        case kMemory: {
            std::string asks = has_mem(r) ? "it requests " + format_mb(r.req_mem_mb) + " of memory; " : "";
            if (un && un->last_oom_req_mem_mb > 0)
                return asks + "your last run of " + name + " that ran out of memory asked for " +
                       format_mb(un->last_oom_req_mem_mb);
            if (un && un->max_rss_mb > 0 && has_mem(r) && un->max_rss_mb > 0.8 * r.req_mem_mb)
                return asks + "your runs of " + name + " used up to " + format_mb_used(un->max_rss_mb);
            if (top_class == 2 && has_mem(r))
                return "it requests " + format_mb(r.req_mem_mb) + " of memory, an amount the model associates with running out of memory";
            return std::nullopt;
        }
        case kUserStem: {
            std::string_view stem = name_series(r.name);
            if (!named || stem.empty() || !h.user_stem) return std::nullopt;
            return runs_failed(*h.user_stem, quoted(std::string(stem) + "*"));
        }
        case kUser: {
            const HistoryStats *u = h.user;
            if (!u || u->recent_n == 0 || recent_failures(*u) == 0) return std::nullopt;
            char buf[200];
            std::snprintf(buf, sizeof buf, "%d of your last %u jobs failed%s", recent_failures(*u),
                          static_cast<unsigned>(u->recent_n),
                          u->n > u->n_labeled ? " (counting only jobs that completed or failed)" : "");
            return std::string(buf);
        }
        case kPartition: return shared_failures(h.partition, "in partition", std::string(first_partition(r.partition)));
        case kAccount: return shared_failures(h.account, "of account", r.account);
        case kScript:
            if (!r.script_known) return std::nullopt;
            return std::string("its job script has traits the model associates with failure");
        // Said only when there is a finding: the finding's own sentence (script_findings.h) gives the line.
        case kFindings:
            if (r.script_missing_modules > 0) return std::string("its job script loads a module this cluster does not have");
            if (r.script_ignored_sbatch > 0) return std::string("its job script has #SBATCH lines that sbatch ignored");
            return std::nullopt;
        case kRequest: {
            std::string parts;
            char buf[64];
            if (known(r.req_cpus) && r.req_cpus > 0) {
                std::snprintf(buf, sizeof buf, "%.0f CPU%s", r.req_cpus, r.req_cpus == 1 ? "" : "s");
                parts += buf;
            }
            if (known(r.req_nodes) && r.req_nodes > 0) {
                std::snprintf(buf, sizeof buf, "%s%.0f node%s", parts.empty() ? "" : " on ", r.req_nodes,
                              r.req_nodes == 1 ? "" : "s");
                parts += buf;
            }
            if (known(r.req_gpus) && r.req_gpus > 0) parts += parts.empty() ? "GPUs" : ", with GPUs";
            if (parts.empty()) return std::nullopt;
            return "the model associates its request (" + parts + ") with failure";
        }
        case kThemes: break;
    }
    return std::nullopt;
}

}  // namespace

namespace {
std::string reasons(const std::array<float, kNumFeatures + 1> &c, const JobRequest &r, const HistoryView &h,
                    int top_class, size_t max_reasons, const char *fallback);
}  // namespace

std::string explain(const TreeEnsemble &model, const FeatureVector &x, const JobRequest &r, const HistoryView &h,
                    int top_class, size_t max_reasons) {
    std::array<float, kNumFeatures + 1> c{};
    model.contributions(x.data(), c.data());
    return reasons(c, r, h, top_class, max_reasons, "it resembles jobs that failed");
}

std::string explain(const ModelBundle &model, const FeatureVector &x, const JobRequest &r, const HistoryView &h,
                    int top_class, size_t max_reasons) {
    if (!model.is_rules()) return explain(model.failure_model(), x, r, h, top_class, max_reasons);
    // A rule's reason is the history it read; when that holds no failure to quote (a score of 0, shown only
    // by predict --explain-all), the next history that does, from the narrowest.
    std::array<float, kNumFeatures + 1> c{};
    float weight = 0.9f;
    for (int f : {F_un_recent_fail_rate, F_us_recent_fail_rate, F_u_recent_fail_rate, F_p_recent_fail_rate, F_a_recent_fail_rate}) {
        c[static_cast<size_t>(f)] = weight;
        weight -= 0.1f;
    }
    if (int f = rule_evidence(*model.rule(), x); f >= 0) c[static_cast<size_t>(f)] = 1;
    return reasons(c, r, h, top_class, 1, "it resembles jobs that failed");
}

namespace {
std::string reasons(const std::array<float, kNumFeatures + 1> &c, const JobRequest &r, const HistoryView &h,
                    int top_class, size_t max_reasons, const char *fallback) {
    std::array<double, kThemes> theme{};
    // A name without a run number is its own stem: one theme, so the reason names the job plainly.
    // (Unless the name itself has no history: then the stem's runs are all there is to quote.)
    bool stem_is_name = name_series(r.name) == std::string_view(r.name) && h.user_name != nullptr;
    for (int f = 0; f < kNumFeatures; ++f) {
        Theme t = theme_of(f);
        if (t == kUserStem && stem_is_name) t = kUserName;
        theme[t] += c[static_cast<size_t>(f)];
    }
    std::vector<int> order;
    for (int t = 0; t < kThemes; ++t)
        if (theme[static_cast<size_t>(t)] > 0.05) order.push_back(t);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return theme[a] > theme[b]; });
    std::string out;
    size_t given = 0;
    for (size_t i = 0; i < order.size() && given < max_reasons; ++i) {
        auto why = reason(static_cast<Theme>(order[i]), r, h, top_class);
        if (!why) continue;
        if (!out.empty()) out += "; ";
        out += *why;
        ++given;
    }
    if (out.empty()) out = fallback;
    return out;
}
}  // namespace

}  // namespace jfp
