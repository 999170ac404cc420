#include "explain.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

namespace jfp {

std::string format_mb(double mb) {
    char buf[32];
    if (mb >= 1024 * 1024) std::snprintf(buf, sizeof buf, "%.1fT", mb / 1024 / 1024);
    else if (mb >= 1024) std::snprintf(buf, sizeof buf, "%.1fG", mb / 1024);
    else std::snprintf(buf, sizeof buf, "%.0fM", mb);
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

enum Theme { kUserName, kTime, kMemory, kUserStem, kUser, kPartition, kAccount, kScript, kRequest, kThemes };

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
        default:
            if (f >= F_script_bytes && f <= F_script_set_e) return kScript;
            return kRequest;
    }
}

std::string quoted(const std::string &s) { return "'" + (s.size() > 40 ? s.substr(0, 40) + "..." : s) + "'"; }

std::string runs_failed(const HistoryStats &s, const std::string &what) {
    char buf[256];
    if (s.streak >= 2) {
        std::snprintf(buf, sizeof buf, "your last %u runs of %s failed", s.streak, what.c_str());
    } else if (s.streak == 1) {
        std::snprintf(buf, sizeof buf, "your last run of %s failed", what.c_str());
    } else if (s.recent_n > 0 && __builtin_popcount(s.recent) > 0) {
        std::snprintf(buf, sizeof buf, "%d of your last %u runs of %s failed", __builtin_popcount(s.recent),
                      static_cast<unsigned>(s.recent_n), what.c_str());
    } else if (s.n > 0) {
        std::snprintf(buf, sizeof buf, "%u of %u earlier runs of %s failed", s.n_fail, s.n, what.c_str());
    } else {
        std::snprintf(buf, sizeof buf, "%s has no successful run yet", what.c_str());
    }
    return buf;
}

// A reason for the theme, or nothing when the history gives no concrete evidence for it (a time limit
// is only a reason when runs timed out or ran longer than it asks).
std::optional<std::string> reason(Theme t, const JobRequest &r, const HistoryView &h, int top_class) {
    std::string name = quoted(r.name);
    char buf[256];
    switch (t) {
        case kUserName:
            if (h.user_name) return runs_failed(*h.user_name, name);
            return "this is the first run of " + name;
        case kTime: {
            std::string asks = "it asks for " + format_minutes(r.timelimit_min);
            if (h.user_name && h.user_name->last_fail_timelimit_min > 0)
                return asks + "; your last run of " + name + " that hit its time limit had " +
                       format_minutes(h.user_name->last_fail_timelimit_min);
            if (h.user_name && h.user_name->max_ok_elapsed_s > 0 &&
                h.user_name->max_ok_elapsed_s / 60.0 > 0.8 * r.timelimit_min)
                return asks + "; your longest successful run of " + name + " took " +
                       format_minutes(h.user_name->max_ok_elapsed_s / 60.0);
            if (top_class == 1) return asks + ", a time limit that similar jobs ran out of";
            return std::nullopt;
        }
        case kMemory: {
            std::string asks = known(r.req_mem_mb) ? "it requests " + format_mb(r.req_mem_mb) + " of memory"
                                                   : "it requests no memory explicitly";
            if (h.user_name && h.user_name->last_oom_req_mem_mb > 0)
                return asks + "; runs of " + name + " ran out of memory with " +
                       format_mb(h.user_name->last_oom_req_mem_mb);
            if (h.user_name && h.user_name->max_rss_mb > 0 && known(r.req_mem_mb) &&
                h.user_name->max_rss_mb > 0.8 * r.req_mem_mb)
                return asks + "; runs of " + name + " used up to " + format_mb(h.user_name->max_rss_mb);
            if (top_class == 2) return asks + "; similar jobs ran out of memory";
            return std::nullopt;
        }
        case kUserStem: {
            std::string stem = quoted(std::string(name_stem(r.name)) + "*");
            if (h.user_stem) return runs_failed(*h.user_stem, stem);
            return "runs named like " + stem + " have failed";
        }
        case kUser:
            if (h.user && h.user->recent_n > 0) {
                std::snprintf(buf, sizeof buf, "%d of your last %u jobs failed", __builtin_popcount(h.user->recent),
                              static_cast<unsigned>(h.user->recent_n));
                return buf;
            }
            return "your recent jobs failed often";
        case kPartition:
            if (h.partition && h.partition->recent_n > 0) {
                std::snprintf(buf, sizeof buf, "jobs in partition '%s' have been failing lately (%d of the last %u)",
                              r.partition.c_str(), __builtin_popcount(h.partition->recent),
                              static_cast<unsigned>(h.partition->recent_n));
                return buf;
            }
            return "jobs in partition '" + r.partition + "' fail often";
        case kAccount:
            return "jobs of account '" + r.account + "' have been failing lately";
        case kScript:
            return "its job script resembles scripts of jobs that failed";
        case kRequest:
        default: {
            std::snprintf(buf, sizeof buf, "jobs of this shape (%.0f CPUs, %.0f nodes%s) fail more often", r.req_cpus,
                          r.req_nodes, r.req_gpus > 0 ? ", GPUs" : "");
            return buf;
        }
        case kThemes: break;
    }
    return "it resembles jobs that failed";
}

}  // namespace

std::string explain(const TreeEnsemble &model, const FeatureVector &x, const JobRequest &r, const HistoryView &h,
                    int top_class, size_t max_reasons) {
    std::array<float, kNumFeatures + 1> c{};
    model.contributions(x.data(), c.data());
    std::array<double, kThemes> theme{};
    // A name without a run number is its own stem: one theme, so the reason names the job plainly.
    bool stem_is_name = name_stem(r.name) == std::string_view(r.name);
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
    if (out.empty()) out = "it resembles jobs that failed";
    return out;
}

std::string advice(int top_class, const JobRequest &r) {
    switch (top_class) {
        case 1: return "If it needs longer, ask for more time (sbatch -t).";
        case 2: return "If it needs more memory, ask for it (sbatch --mem or --mem-per-cpu).";
        case 3: return "Node failures are rarely the job's fault; if it keeps happening, tell your admins.";
        default:
            return "Check the error output of your last run of '" + r.name + "' (sacct -u $USER --name='" + r.name +
                   "') and fix the cause first.";
    }
}

}  // namespace jfp
