#include "model/policy/user_message.h"

#include <cmath>
#include <cstdio>

#include "model/jobs/outcome.h"
#include "model/policy/explain.h"

namespace jfp {

std::string amount_text(double v) {
    if (!(v >= 0) || v > 1e15) return "?";
    if (v == 0) return "0";
    if (v < 0.01) return "under 0.01";
    char buf[64];
    if (v < 10) {
        std::snprintf(buf, sizeof buf, "%.2g", v);
        return buf;
    }
    if (v < 1000) {
        std::snprintf(buf, sizeof buf, "%.1f", v);
        std::string s(buf);
        if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
        return s;
    }
    std::snprintf(buf, sizeof buf, "%.0f", v);
    std::string digits(buf), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

void set_waste_parts(MessageParts &m, const Decision &d) {
    m.by_waste = d.by_waste;
    m.over_budget = d.over_budget;
    m.cheap = d.cheap;
    m.cost_unbounded = d.cost_unbounded;
    m.cost = d.cost;
    m.expected_waste = d.expected_waste;
    m.budget = d.budget;
    m.unit = d.unit;
    m.mem_priced_mb = d.mem_priced_mb;
}

std::string user_message(const MessageParts &m) {
    char head[96];
    int cls = m.top_class >= 0 && m.top_class < kFailureClasses ? m.top_class : 0;
    const char *cls_name = outcome_name(kFailureClassOutcomes[cls]);
    std::snprintf(head, sizeof head, "(p=%.2f, most likely %s)", m.p_fail, cls_name);
    const std::string unit = m.unit;
    // Over the budget by what it would waste: the cost and the chance are said as they are, since a job
    // refused for its size may well be more likely to succeed than to fail.
    const bool by_cost = m.by_waste && m.over_budget && !m.cost_unbounded;
    std::string reason;
    if (by_cost) {
        char p[64];
        if (m.p_fail < 0.005) std::snprintf(p, sizeof p, "under 0.01 (most likely %s)", cls_name);
        else std::snprintf(p, sizeof p, "%.2f (most likely %s)", m.p_fail, cls_name);
        std::string priced;
        if (m.mem_priced_mb > 0)
            priced = " (its memory priced at the " + format_mb_used(m.mem_priced_mb) + " its earlier runs used)";
        reason = "it asks for " + amount_text(m.cost) + " " + unit + priced + " and jfp puts its chance of failing at " +
                 p + ": an expected " + amount_text(m.expected_waste) + " " + unit + " lost, at or over the budget of " +
                 amount_text(m.budget) + ". Why: " + m.why + ". " + m.what;
    } else {
        // "probably" only where the p shown is at least one half: a site's threshold may sit far below it.
        const bool likely = std::round(static_cast<double>(m.p_fail) * 100) >= 50;
        reason = std::string(m.action == Action::Reject ? "it" : "this job") + (likely ? " will probably fail " : " may fail ") +
                 head + ": " + m.why + ". " + m.what;
    }
    std::string out;
    if (m.action == Action::Reject) {
        out = "jfp: job rejected: " + reason;
        if (m.cost_unbounded)
            out += " What it asks for does not bound what a failure would waste (no time limit, or an amount jfp cannot "
                   "price), so it is judged by its chance alone.";
        out += m.allow_override ? " To submit it anyway, add '" + m.override_token + "' to --comment."
                                : " If you think this is wrong, contact your admins.";
    } else {
        out = "jfp: warning: " + reason;
        if (m.cheap)
            out += " It asks for " + amount_text(m.cost) + " " + unit + ", so a failure would waste little: it is not refused.";
        else if (m.by_waste && !m.over_budget && m.cost >= 0)
            out += " It asks for " + amount_text(m.cost) + " " + unit + ".";
        if (m.override_used) out += " Submitted anyway because of '" + m.override_token + "'; this is logged.";
    }
    return m.interactive ? wrap_text(out, kTerminalWidth - kFirstLinePrefix, kTerminalWidth - kLinePrefix) : out;
}

std::string wrap_text(std::string_view text, size_t first_width, size_t width) {
    std::string out;
    size_t budget = first_width;
    size_t line_len = 0;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && text[i] == ' ') ++i;
        size_t b = i;
        while (i < text.size() && text[i] != ' ') ++i;
        if (b == i) break;
        std::string_view word = text.substr(b, i - b);
        if (line_len > 0 && line_len + 1 + word.size() > budget) {
            out += "\n  ";
            line_len = 2;
            budget = width;
        } else if (line_len > 0) {
            out += ' ';
            ++line_len;
        }
        out += word;
        line_len += word.size();
    }
    return out;
}

}  // namespace jfp
