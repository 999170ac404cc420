#include "model/policy/policy.h"

#include <charconv>
#include <cmath>

#include "model/util/text.h"

namespace jfp {

const char *action_name(Action a) {
    switch (a) {
        case Action::None: return "none";
        case Action::Annotate: return "annotate";
        case Action::Warn: return "warn";
        case Action::Reject: return "reject";
    }
    return "?";
}

double threshold_for(const Config &c, const JobRequest &r, double bundle_threshold) {
    if (auto it = c.qos_threshold.find(r.qos); !r.qos.empty() && it != c.qos_threshold.end()) return it->second;
    if (auto it = c.account_threshold.find(r.account); !r.account.empty() && it != c.account_threshold.end())
        return it->second;
    if (auto it = c.partition_threshold.find(r.partition); !r.partition.empty() && it != c.partition_threshold.end())
        return it->second;
    if (c.threshold) return *c.threshold;
    return bundle_threshold;
}

double budget_for(const Config &c, const JobRequest &r, double bundle_budget) {
    if (auto it = c.qos_waste_budget.find(r.qos); !r.qos.empty() && it != c.qos_waste_budget.end()) return it->second;
    if (auto it = c.account_waste_budget.find(r.account); !r.account.empty() && it != c.account_waste_budget.end())
        return it->second;
    if (auto it = c.partition_waste_budget.find(r.partition);
        !r.partition.empty() && it != c.partition_waste_budget.end())
        return it->second;
    if (c.waste_budget) return *c.waste_budget;
    return known(bundle_budget) && bundle_budget > 0 ? bundle_budget : kUnknown;
}

bool is_exempt(const Config &c, const JobRequest &r) {
    return c.exempt_users.count(r.user) || (!r.account.empty() && c.exempt_accounts.count(r.account)) ||
           (!r.partition.empty() && c.exempt_partitions.count(r.partition)) ||
           (!r.qos.empty() && c.exempt_qos.count(r.qos));
}

bool has_override(std::string_view comment, const std::string &token) {
    // A whole word: "jfp:override" must not match "jfp:overrides".
    for (size_t pos = comment.find(token); pos != std::string_view::npos; pos = comment.find(token, pos + 1)) {
        bool left = pos == 0 || is_space(comment[pos - 1]) || comment[pos - 1] == ',' || comment[pos - 1] == ';';
        size_t end = pos + token.size();
        bool right = end == comment.size() || is_space(comment[end]) || comment[end] == ',' || comment[end] == ';';
        if (left && right) return true;
    }
    return false;
}

void apply_policy(const Config &c, const JobRequest &r, const HistoryView &h, std::string_view comment,
                  double bundle_threshold, const Score &s, Decision &d, bool bundle_below_target,
                  const WasteInput *waste) {
    d = Decision{};
    d.scored = true;
    d.p_fail = s.p_fail;
    d.top_class = s.classified ? s.top_class : -1;
    d.threshold = threshold_for(c, r, bundle_threshold);
    d.above = s.p_fail >= d.threshold;
    d.exempt = is_exempt(c, r);
    d.flagged = d.above;
    if (waste && c.decide_by == DecideBy::Waste) {
        d.cost = waste->cost;
        d.unit = waste->unit;
        d.mem_priced_mb = waste->mem_priced_mb;
        d.budget = budget_for(c, r, waste->bundle_budget);
        if (known(d.budget)) {
            d.by_waste = true;
            if (known(d.cost)) {
                d.expected_waste = static_cast<double>(s.p_fail) * d.cost;
                d.over_budget = d.expected_waste >= d.budget;
            } else {
                // Unknown is not zero: a job no limit bounds is never cheap, and is judged by p alone.
                d.cost_unbounded = true;
                d.over_budget = d.above;
            }
            d.flagged = d.above || d.over_budget;
        }
    }
    d.action = Action::None;
    switch (c.mode) {
        case Mode::Off:
        case Mode::Shadow: return;
        case Mode::Annotate: d.action = Action::Annotate; return;
        case Mode::Warn:
            if (d.flagged && !d.exempt) d.action = Action::Warn;
            return;
        case Mode::Reject: break;
    }
    if (!d.flagged || d.exempt) return;
    // A likely failure that would waste little is said, not refused.
    if (d.by_waste && !d.over_budget) {
        d.cheap = true;
        d.action = Action::Warn;
        return;
    }
    if (r.privileged && !c.reject_privileged) {
        d.privileged = true;
        d.action = Action::Warn;
        return;
    }
    // Without the store every user looks like a first-timer: that is a fault, not evidence.
    if (!h.loaded) {
        d.no_history = true;
        d.action = Action::Warn;
        return;
    }
    uint32_t prior = h.user_name ? h.user_name->n : 0;
    if (static_cast<int>(prior) < c.min_history) {
        d.below_min_history = true;
        d.action = Action::Warn;
        return;
    }
    if (c.allow_override && has_override(comment, c.override_token)) {
        d.override_used = true;
        d.action = Action::Warn;
        return;
    }
    // The target precision guards a refusal by p; one by cost is guarded by the budget's own bound.
    const bool judged_by_p = !d.by_waste || d.cost_unbounded;
    if (bundle_below_target && !c.reject_below_target && judged_by_p) {
        d.below_target = true;
        d.action = Action::Warn;
        return;
    }
    d.action = Action::Reject;
}

std::string format_annotation(float p, int top_class, const std::string &model_id, bool override_used,
                              std::string_view suggestion) {
    std::string out;
    append_annotation_text(out, p, top_class, model_id, override_used, suggestion);
    return out;
}

void append_annotation_text(std::string &out, float p, int top_class, const std::string &model_id, bool override_used,
                            std::string_view suggestion) {
    // On every submission: to_chars, not snprintf (bench/hotpath). Same digits as "%.3f".
    out.reserve(out.size() + 48 + model_id.size() + suggestion.size());
    out += "jfp:p=";
    char num[32];
    auto r = std::to_chars(num, num + sizeof num, static_cast<double>(p), std::chars_format::fixed, 3);
    out.append(num, r.ptr);
    if (top_class >= 0 && top_class < kFailureClasses) {
        out += ",class=";
        out += outcome_name(kFailureClassOutcomes[top_class]);
    }
    out += ",model=";
    out += model_id;
    out += suggestion;
    if (override_used) out += ",override";
}

std::optional<std::string> neutralize(std::string_view t) {
    if (t.find("jfp:") == std::string_view::npos) return std::nullopt;
    std::string out(t);
    bool changed = false;
    for (size_t pos = out.find("jfp:"); pos != std::string::npos; pos = out.find("jfp:", pos + 1)) {
        if (pos + 5 < out.size() && (out[pos + 4] == 'p' || out[pos + 4] == 't') && out[pos + 5] == '=') {
            out[pos + 3] = ';';
            changed = true;
        }
    }
    if (!changed) return std::nullopt;
    return out;
}

std::optional<std::string> append_annotation(std::string_view comment, std::string_view annotation, size_t limit) {
    auto join = [&](std::string_view a) {
        std::string out;
        out.reserve(comment.size() + 1 + a.size());
        out.append(comment);
        if (!out.empty()) out += ' ';
        out += a;
        return out;
    };
    std::string full = join(annotation);
    if (full.size() <= limit) return full;
    auto model = annotation.find(",model=");
    if (model != std::string_view::npos) {
        std::string shorter = join(annotation.substr(0, model));
        if (shorter.size() <= limit) return shorter;
    }
    return std::nullopt;
}

std::optional<ParsedAnnotation> parse_annotation(std::string_view text) {
    auto pos = text.rfind("jfp:p=");
    if (pos == std::string_view::npos) return std::nullopt;
    auto rest = text.substr(pos + 6);
    auto end = rest.find_first_of(" \t\n");
    rest = rest.substr(0, end);
    ParsedAnnotation a;
    auto parts = split(rest, ',');
    auto p = parse_double(parts[0]);
    if (!p) return std::nullopt;
    a.p = *p;
    for (size_t i = 1; i < parts.size(); ++i) {
        if (starts_with(parts[i], "class=")) a.cls = std::string(parts[i].substr(6));
        else if (starts_with(parts[i], "model=")) a.model = std::string(parts[i].substr(6));
        else if (starts_with(parts[i], "time=")) a.time = std::string(parts[i].substr(5));
        else if (starts_with(parts[i], "mem=")) a.mem = std::string(parts[i].substr(4));
        else if (starts_with(parts[i], "script=")) a.script = std::string(parts[i].substr(7));
        else if (parts[i] == "override") a.override_used = true;
    }
    return a;
}

}  // namespace jfp
