// A job script's identity beyond its name: a renamed copy of a failing script keeps that script's history.
// The hash covers the part of the script the submit path scans (kScriptScanBytes) with what does not change
// what it runs left out: whole-line comments (#SBATCH and #! among them: the request is judged on its own),
// a comment after a blank, blank lines, and runs of spacing. A script that differs in any command is
// another script.
#pragma once

#include <cstdint>
#include <string_view>

namespace jfp {

// 0 when there is nothing to identify: empty, binary (NUL bytes), or comments and blanks only.
uint64_t script_fingerprint(std::string_view script);

// The text the hash is taken over, one normalised line per '\n' (for tests and `jfp scripts`).
std::string normalized_script(std::string_view script);

}  // namespace jfp
