// What to do with a scored job, by the admin's jfp.conf: nothing, annotate, warn or reject; plus the
// annotation's wire format and the neutralisation of user text that imitates it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/history/history.h"
#include "model/jobs/job_request.h"
#include "model/policy/config.h"
#include "model/scoring/model_bundle.h"

namespace jfp {

enum class Action : uint8_t { None = 0, Annotate = 1, Warn = 2, Reject = 3 };
const char *action_name(Action a);

struct Decision {
    Action action = Action::None;
    bool scored = false;
    float p_fail = 0;
    int top_class = -1;  // -1: not computed (the submit path classifies only a job at or above its threshold)
    double threshold = 1;
    bool above = false;            // p_fail >= threshold
    bool exempt = false;           // an exemption applied
    bool override_used = false;    // the user's override token downgraded a reject
    bool below_min_history = false;  // too little history to reject
    bool no_history = false;         // no history loaded (store missing or failing): never enough to reject
    bool privileged = false;         // root or SlurmUser without reject_privileged: warned, not rejected
    bool below_target = false;       // the model missed its target precision (no reject_below_target): warned
    // decide_by = waste (WasteInput): the job is flagged when its expected waste (p x cost) reaches the
    // budget, or its p the threshold; only a job over the budget is refused.
    bool by_waste = false;
    bool flagged = false;       // acted on (or would be, in shadow): above, or over the budget
    bool over_budget = false;   // p x cost >= budget, or (cost unbounded) p >= threshold
    bool cheap = false;         // above the threshold, under the budget: warned, not refused
    bool cost_unbounded = false;  // no time limit bounds the cost: judged by p alone
    double cost = kUnknown;       // what the job asks for, in `unit`
    double expected_waste = kUnknown;
    double budget = kUnknown;
    const char *unit = "core-hours";
    double mem_priced_mb = kUnknown;  // memory priced above the request (what earlier runs used); NaN: as asked
    std::string message;           // for warn and reject: the reason and what to do
};

// Threshold for this job: the most specific override wins (QOS, then account, then partition), then
// jfp.conf's threshold, then the bundle's.
double threshold_for(const Config &c, const JobRequest &r, double bundle_threshold);
bool is_exempt(const Config &c, const JobRequest &r);
bool has_override(std::string_view comment, const std::string &token);

// What deciding by waste needs besides the score: the job's cost (model/jobs/billing.h, NaN when
// unbounded) in its unit, and the bundle's budget (NaN when it records none).
struct WasteInput {
    double cost = kUnknown;
    const char *unit = "core-hours";
    double bundle_budget = kUnknown;
    double mem_priced_mb = kUnknown;  // set when memory was priced above the request (what earlier runs used)
};
// The budget for this job: QOS, then account, then partition, then jfp.conf's waste_budget, then the
// bundle's; NaN when none is set (the job is then judged by probability, and the log says so).
double budget_for(const Config &c, const JobRequest &r, double bundle_budget);

// Fills action, threshold and flags from the score (message and annotation are left to the caller).
// bundle_below_target: the model missed its target precision; in reject mode it then warns, unless
// reject_below_target.
// waste: with decide_by = waste, the job's cost and the bundle's budget (nullptr: judged by probability).
void apply_policy(const Config &c, const JobRequest &r, const HistoryView &h, std::string_view comment,
                  double bundle_threshold, const Score &s, Decision &d, bool bundle_below_target = false,
                  const WasteInput *waste = nullptr);

// "jfp:p=0.873,class=TIMEOUT,model=20240301T020000-1a2b3c4d" (",override" when the override was used).
// A suggestion from advice.h follows the model as ",time=02:30:00" or ",mem=4G", then what the script
// shows for certain (",script=ignored_sbatch+missing_module"); the caller passes both. top_class -1 (a job
// below the threshold) leaves the class out: "jfp:p=0.180,model=...".
std::string format_annotation(float p, int top_class, const std::string &model_id, bool override_used,
                              std::string_view suggestion = {});
// The same text appended to out: the submit path writes it straight into the job's admin comment.
void append_annotation_text(std::string &out, float p, int top_class, const std::string &model_id, bool override_used,
                            std::string_view suggestion = {});

// User text that imitates jfp's annotation or token ("jfp:p=", "jfp:t=") has its colon replaced
// ("jfp;p="), so nothing but the plugin can write a parseable annotation. Returns nullopt when the text
// needs no change.
std::optional<std::string> neutralize(std::string_view user_text);

// The comment with the annotation appended (space separated), or the shorter "jfp:p=..,class=.." form if
// the full one would pass Slurm's limit, or nullopt if neither fits. The user's text is never cut.
std::optional<std::string> append_annotation(std::string_view comment, std::string_view annotation, size_t limit = 1024);

// Parses an annotation back (the last one in the text): for users, admins and tests.
struct ParsedAnnotation {
    double p = 0;
    std::string cls, model;
    std::string time, mem;  // suggested -t and --mem, as Slurm takes them; empty when none
    bool override_used = false;
    // What the script showed for certain at submission: "ignored_sbatch", "missing_module", or both
    // joined by '+'; empty when nothing (ignored_directives and missing_modules in jfp.conf(5)).
    std::string script;
};
std::optional<ParsedAnnotation> parse_annotation(std::string_view text);

}  // namespace jfp
