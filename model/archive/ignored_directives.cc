#include "model/archive/ignored_directives.h"

#include <algorithm>
#include <cstring>

#include "model/util/text.h"

namespace jfp {

namespace {

bool blank(char c) { return is_space(c); }  // a line holds no '\n'

// A here-document's end: its delimiter, and whether leading tabs are stripped (<<-).
struct Heredoc {
    std::string word;
    bool strip_tabs = false;
};

// The delimiter word after "<<" or "<<-" at line[i], quotes removed (as the shell compares it).
std::string delimiter_at(std::string_view line, size_t &i) {
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
void heredocs_opened(std::string_view line, std::vector<Heredoc> &out) {
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

// "#SBATCH" followed by a blank or the end: a directive as users write them ("#SBATCHING" and "#SLURM_JOB_ID
// is..." are comments people write, and are not reported).
bool directive_shape(std::string_view s) {
    return starts_with(s, "#SBATCH") && (s.size() == 7 || blank(s[7]));
}

std::string trimmed_text(std::string_view s) { return std::string(trim(s).substr(0, IgnoredDirective::kMaxText)); }

}  // namespace

DirectiveScan find_ignored_directives(std::string_view script, size_t max_found, size_t max_bytes) {
    DirectiveScan out;
    if (script.size() > max_bytes) {
        script = script.substr(0, max_bytes);
        out.complete = false;
    }
    std::vector<Heredoc> pending;  // opened by the command being read, then their bodies in order
    size_t open = 0;               // the body being read, while in_bodies
    bool in_bodies = false;
    bool continued = false;        // the last command line ended in a backslash
    uint32_t lineno = 0;
    for (size_t pos = 0; pos < script.size();) {
        size_t nl = script.find('\n', pos);
        size_t end = nl == std::string_view::npos ? script.size() : nl;
        std::string_view line = script.substr(pos, end - pos);
        pos = end + 1;
        ++lineno;
        // sbatch reads a line as a C string: it ends at a NUL.
        if (size_t z = line.find('\0'); z != std::string_view::npos) line = line.substr(0, z);

        if (in_bodies) {  // inside a here-document's body: text the script writes, not its own lines
            std::string_view l = line;
            if (pending[open].strip_tabs)
                while (!l.empty() && l.front() == '\t') l.remove_prefix(1);
            if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
            if (l == pending[open].word && ++open == pending.size()) {
                pending.clear();
                open = 0;
                in_bodies = false;
            }
            continue;
        }
        size_t first = 0;
        while (first < line.size() && blank(line[first])) ++first;
        std::string_view rest = line.substr(first);
        if (!out.first_command_line) {
            if (first == 0 && (starts_with(rest, "#SBATCH") || starts_with(rest, "#SLURM"))) continue;  // read by sbatch
            if (rest.empty()) continue;
            if (rest.front() == '#') {
                if (first > 0 && directive_shape(rest))
                    out.ignored.push_back({lineno, IgnoredDirective::Why::Indented, trimmed_text(rest)});
            } else {
                out.first_command_line = lineno;
                // The usual script: no "#SBATCH" after its first command, so nothing to find (a finding is
                // a line that starts with it); one search instead of reading every line for here-documents.
                if (script.find("#SBATCH", pos) == std::string_view::npos) break;
                heredocs_opened(line, pending);
                continued = line.back() == '\\';
            }
        } else if (directive_shape(rest) && !continued) {
            out.ignored.push_back({lineno, IgnoredDirective::Why::AfterCommand, trimmed_text(rest)});
        } else {
            heredocs_opened(line, pending);
            continued = !line.empty() && line.back() == '\\';
        }
        if (out.ignored.size() >= max_found) {
            if (pos < script.size()) out.complete = false;
            break;
        }
        if (!continued && !pending.empty()) in_bodies = true;  // bodies begin after the whole command
    }
    return out;
}

}  // namespace jfp
