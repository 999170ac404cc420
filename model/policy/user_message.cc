#include "model/policy/user_message.h"

#include <cstdio>

#include "model/jobs/outcome.h"

namespace jfp {

std::string user_message(const MessageParts &m) {
    char head[96];
    int cls = m.top_class >= 0 && m.top_class < kFailureClasses ? m.top_class : 0;
    std::snprintf(head, sizeof head, "(p=%.2f, most likely %s)", m.p_fail, outcome_name(kFailureClassOutcomes[cls]));
    std::string out;
    if (m.action == Action::Reject) {
        out = "jfp: job rejected: it will probably fail " + std::string(head) + ": " + m.why + ". " + m.what;
        out += m.allow_override ? " To submit it anyway, add '" + m.override_token + "' to --comment."
                                : " If you think this is wrong, contact your admins.";
    } else {
        out = "jfp: warning: this job will probably fail " + std::string(head) + ": " + m.why + ". " + m.what;
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
