#include "model/script/ignored_directives.h"

#include <algorithm>
#include <cstring>

#include "model/script/heredoc.h"
#include "model/script/script_mentions.h"
#include "model/util/text.h"

namespace jfp {

namespace {

// "#SBATCH" followed by a blank or the end: a directive as users write them ("#SBATCHING" and "#SLURM_JOB_ID
// is..." are comments people write, and are not reported).
bool directive_shape(std::string_view s) {
    return starts_with(s, "#SBATCH") && (s.size() == 7 || is_space(s[7]));
}

std::string trimmed_text(std::string_view s) { return std::string(trim(s).substr(0, IgnoredDirective::kMaxText)); }

}  // namespace

DirectiveScan find_ignored_directives(std::string_view script, size_t max_found, size_t max_bytes) {
    const std::string_view head = script.substr(0, max_bytes);
    ScriptMentions said = find_script_mentions(head, false);
    if (head.size() > kDirectiveScanBytes) said.last_sbatch = head.rfind("#SBATCH");  // past the pass's range
    return find_ignored_directives(script, said, max_found, max_bytes);
}

DirectiveScan find_ignored_directives(std::string_view script, const ScriptMentions &said, size_t max_found, size_t max_bytes) {
    DirectiveScan out;
    if (script.size() > max_bytes) {
        script = script.substr(0, max_bytes);
        out.complete = false;
    }
    HeredocTracker heredocs;
    uint32_t lineno = 0;
    for (size_t pos = 0; pos < script.size();) {
        size_t nl = script.find('\n', pos);
        size_t end = nl == std::string_view::npos ? script.size() : nl;
        std::string_view line = script.substr(pos, end - pos);
        pos = end + 1;
        ++lineno;
        // sbatch reads a line as a C string: it ends at a NUL.
        if (size_t z = line.find('\0'); z != std::string_view::npos) line = line.substr(0, z);
        if (heredocs.in_body(line)) continue;  // text the script writes, not its own lines

        size_t first = 0;
        while (first < line.size() && is_space(line[first])) ++first;
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
                // a line that starts with it); the pass over the bytes said where the last one is, so the
                // lines are not read for here-documents.
                if (said.last_sbatch == std::string_view::npos || said.last_sbatch < pos) break;
                heredocs.command(line);
            }
        } else if (directive_shape(rest) && !heredocs.continued()) {
            out.ignored.push_back({lineno, IgnoredDirective::Why::AfterCommand, trimmed_text(rest)});
        } else {
            heredocs.command(line);
        }
        if (out.ignored.size() >= max_found) {
            if (pos < script.size()) out.complete = false;
            break;
        }
    }
    return out;
}

}  // namespace jfp
