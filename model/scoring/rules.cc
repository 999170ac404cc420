#include "model/scoring/rules.h"

#include <cmath>

namespace jfp {

namespace {
bool has(const FeatureVector &x, int f) { return !std::isnan(x[static_cast<size_t>(f)]); }
}  // namespace

const char *rule_id(Rule r) {
    switch (r) {
        case Rule::LastUserNameFailed: return "last_outcome_user_name";
        case Rule::UserRecentRate: return "user_failure_rate_last10";
        case Rule::UserStemRecentRate: return "user_stem_failure_rate_last10";
        case Rule::MostSpecificRecentRate: return "most_specific_failure_rate_last10";
    }
    return "?";
}

const char *rule_label(Rule r) {
    switch (r) {
        case Rule::LastUserNameFailed: return "last run of user+name failed";
        case Rule::UserRecentRate: return "user failure rate, recent runs";
        case Rule::UserStemRecentRate: return "user+stem failure rate, recent runs";
        case Rule::MostSpecificRecentRate: return "narrowest history rate, recent runs";
    }
    return "?";
}

std::optional<Rule> parse_rule(std::string_view id) {
    for (Rule r : kRules)
        if (id == rule_id(r)) return r;
    return std::nullopt;
}

int rule_evidence(Rule r, const FeatureVector &x) {
    switch (r) {
        case Rule::LastUserNameFailed: return F_un_streak;
        case Rule::UserRecentRate: return has(x, F_u_recent_fail_rate) ? F_u_recent_fail_rate : -1;
        case Rule::UserStemRecentRate: return has(x, F_us_recent_fail_rate) ? F_us_recent_fail_rate : -1;
        case Rule::MostSpecificRecentRate:
            for (int f : {F_un_recent_fail_rate, F_us_recent_fail_rate, F_u_recent_fail_rate})
                if (has(x, f)) return f;
            return -1;
    }
    return -1;
}

float rule_score(Rule r, const FeatureVector &x) {
    // The streak of runs that count (history_stats.h): a cheap completion after a failure lowers it, but
    // only a run that weighs at least half takes it below 1/2.
    if (r == Rule::LastUserNameFailed) return x[F_un_streak] >= 0.5f ? 1.0f : 0.0f;
    int f = rule_evidence(r, x);
    return f < 0 ? 0.0f : x[static_cast<size_t>(f)];
}

bool rule_reads(Rule r, int f) {
    switch (r) {
        case Rule::LastUserNameFailed: return f == F_un_streak;
        case Rule::UserRecentRate: return f == F_u_recent_fail_rate;
        case Rule::UserStemRecentRate: return f == F_us_recent_fail_rate;
        case Rule::MostSpecificRecentRate:
            return f == F_un_recent_fail_rate || f == F_us_recent_fail_rate || f == F_u_recent_fail_rate;
    }
    return false;
}

}  // namespace jfp
