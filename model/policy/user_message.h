// The text a user sees at sbatch, salloc or srun: one place, so the plugin and `jfp predict --explain`
// print the same words.
#pragma once

#include <string>
#include <string_view>

#include "model/policy/policy.h"

namespace jfp {

struct MessageParts {
    Action action = Action::Warn;  // Warn or Reject
    double p_fail = 0;
    int top_class = 0;          // index into kFailureClassOutcomes
    std::string why;            // explain()
    std::string what;           // advice()
    bool override_used = false;
    bool allow_override = true;
    std::string override_token = "jfp:override";
    bool interactive = false;   // salloc/srun: wrapped for a terminal
    // decide_by = waste: the cost, the expected waste and the budget are said in the site's unit.
    bool by_waste = false;
    bool over_budget = false, cheap = false, cost_unbounded = false;
    double cost = 0, expected_waste = 0, budget = 0;
    const char *unit = "core-hours";
    double mem_priced_mb = kUnknown;  // memory priced above the request: said, with what it was priced at
};

// The parts of a decision the message says (by_waste and its figures).
void set_waste_parts(MessageParts &m, const Decision &d);

// "4,096", "18.5", "0.017", "under 0.01": an amount of billing-hours as a person reads it, never rounded to
// zero, and a budget as the admin wrote it (up to one decimal below 1,000).
std::string amount_text(double v);

std::string user_message(const MessageParts &m);

// Terminal width interactive messages are wrapped to. salloc and srun print every line of the message
// after their own prefix ("salloc: error: ", up to 15 columns), and a rejection's first line after
// more ("srun: error: Unable to allocate resources: ", 43 columns).
inline constexpr size_t kTerminalWidth = 100;
inline constexpr size_t kLinePrefix = 16;
inline constexpr size_t kFirstLinePrefix = 46;

// Breaks text at spaces so the first line holds at most first_width columns and the others at most
// width; continuation lines start with two spaces. A word longer than a line is left whole.
std::string wrap_text(std::string_view text, size_t first_width, size_t width);

}  // namespace jfp
