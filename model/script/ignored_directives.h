// #SBATCH lines sbatch never reads. sbatch takes options from the lines that start with "#SBATCH" (or
// "#SLURM") at the first column, and stops at the first line whose first non-blank character is not '#'
// (src/sbatch/opt.c, _opt_batch_script, the same in 22.05 and 25.11): a directive after a command, or an
// indented one, is silently ignored, and the job runs with a default in its place. Found with certainty.
// A line inside a here-document (the script writing another script) is not a directive and is not reported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/script/script_mentions.h"

namespace jfp {

struct IgnoredDirective {
    enum class Why : uint8_t { AfterCommand, Indented };
    uint32_t line = 0;  // 1-based
    Why why = Why::AfterCommand;
    std::string text;   // the line from its '#', blanks trimmed, at most kMaxText bytes
    static constexpr size_t kMaxText = 120;
};

struct DirectiveScan {
    std::vector<IgnoredDirective> ignored;
    uint32_t first_command_line = 0;  // where sbatch stopped reading; 0 when the script has no command
    bool complete = true;             // false: the scan stopped at max_bytes or max_found
};

// Reads at most max_bytes of the script (a user sizes it) and reports at most max_found lines.
DirectiveScan find_ignored_directives(std::string_view script, size_t max_found = 8, size_t max_bytes = kDirectiveScanBytes);
// The same, after the pass over the script's bytes (find_script_mentions) over at least its first max_bytes.
DirectiveScan find_ignored_directives(std::string_view script, const ScriptMentions &mentions, size_t max_found = 8,
                                      size_t max_bytes = kDirectiveScanBytes);

// The model's feature script_ignored_sbatch: how many such lines the scan above reports (at most its
// max_found), the same count in the plugin and in the trainer.
inline double count_ignored_directives(const DirectiveScan &scan) { return static_cast<double>(scan.ignored.size()); }
inline double count_ignored_directives(std::string_view script) {
    return count_ignored_directives(find_ignored_directives(script));
}

}  // namespace jfp
