#include "model/script/heredoc.h"

#include <cstring>

#include "model/util/text.h"

namespace jfp {

namespace {
bool blank(char c) { return is_space(c); }  // a line holds no '\n'
}  // namespace

// The delimiter word after "<<" or "<<-" at line[i], quotes removed (as the shell compares it).
std::string HeredocTracker::delimiter_at(std::string_view line, size_t &i) {
    while (i < line.size() && blank(line[i])) ++i;
    std::string word;
    char quote = 0;
    for (; i < line.size(); ++i) {
        char c = line[i];
        if (quote) {
            if (c == quote) quote = 0;
            else word += c;
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            continue;
        }
        if (c == '\\' && i + 1 < line.size()) {
            word += line[++i];
            continue;
        }
        if (blank(c) || std::strchr(";|&<>()", c)) break;
        word += c;
    }
    return word;
}

// The here-documents a command line opens, in order. Quotes are followed so that "<<" inside a string is
// not one; arithmetic "$(( a << 2 ))" is skipped; "<<<" is a here-string. A "<<" this misreads can only
// make the scan skip lines (miss a finding), never report one.
void HeredocTracker::opened(std::string_view line, std::vector<Heredoc> &out) {
    char quote = 0;
    int arith = 0;
    for (size_t i = 0; i < line.size(); ++i) {
        char c = line[i];
        if (quote) {
            if (c == '\\' && quote == '"') ++i;
            else if (c == quote) quote = 0;
            continue;
        }
        if (c == '\\') {
            ++i;
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            continue;
        }
        if (c == '#' && (i == 0 || blank(line[i - 1]))) return;  // a comment to the end of the line
        if (c == '$' && line.substr(i, 3) == "$((") {
            ++arith;
            i += 2;
            continue;
        }
        if (arith && line.substr(i, 2) == "))") {
            --arith;
            ++i;
            continue;
        }
        if (arith || c != '<' || line.substr(i, 2) != "<<") continue;
        if (line.substr(i, 3) == "<<<") {
            i += 2;
            continue;
        }
        i += 2;
        Heredoc h;
        if (i < line.size() && line[i] == '-') {
            h.strip_tabs = true;
            ++i;
        }
        h.word = delimiter_at(line, i);
        if (!h.word.empty()) out.push_back(std::move(h));
        --i;
    }
}

bool HeredocTracker::in_body(std::string_view line) {
    if (!in_bodies_) return false;
    std::string_view l = line;
    if (pending_[open_].strip_tabs)
        while (!l.empty() && l.front() == '\t') l.remove_prefix(1);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (l == pending_[open_].word && ++open_ == pending_.size()) {
        pending_.clear();
        open_ = 0;
        in_bodies_ = false;
    }
    return true;
}

void HeredocTracker::command(std::string_view line) {
    // Most lines open none: memchr (vectorised) for a '<' before the parse.
    if (std::memchr(line.data(), '<', line.size()) != nullptr) opened(line, pending_);
    continued_ = !line.empty() && line.back() == '\\';
    if (!continued_ && !pending_.empty()) in_bodies_ = true;
}

}  // namespace jfp
