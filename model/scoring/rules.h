// The history rules: the obvious predictors a site would write by hand ("this user's last run of this job
// failed"), scored from the same feature vector as the tree model. jfp eval reports them beside every model,
// jfp train ships one instead of a tree model that does no better, and a rules bundle is what a cluster
// with too little history for a tree model runs.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "model/scoring/features.h"

namespace jfp {

enum class Rule {
    LastUserNameFailed,       // the latest finished run of the same user + job name failed (1, else 0)
    UserRecentRate,           // failed share of the user's recent runs (HistoryStats::runs)
    UserStemRecentRate,       // the same over the user's jobs of this name without its run number
    MostSpecificRecentRate,   // the recent rate of the narrowest history the job has: user+name, else
                              // user+stem, else user
};
inline constexpr int kNumRules = 4;
inline constexpr std::array<Rule, kNumRules> kRules = {Rule::LastUserNameFailed, Rule::UserRecentRate,
                                                       Rule::UserStemRecentRate, Rule::MostSpecificRecentRate};

// Stable ids, written in bundles and eval's JSON.
const char *rule_id(Rule r);
// For people: "last run of user+name failed".
const char *rule_label(Rule r);
std::optional<Rule> parse_rule(std::string_view id);

// In [0, 1]; 0 where the rule has no history to go on.
float rule_score(Rule r, const FeatureVector &x);
// The feature whose value gave the score (-1: none, the job had no history the rule reads).
int rule_evidence(Rule r, const FeatureVector &x);
// Whether the rule reads feature f at all.
bool rule_reads(Rule r, int f);

}  // namespace jfp
