// A job script's identity beyond its name: a renamed copy of a failing script keeps that script's history.
// The hash covers the scanned head (kScriptScanBytes) normalised, up to kFingerprintBytes of normalised text,
// with what does not change what a script runs left out: whole-line comments (#SBATCH and #! among them: the
// request is judged on its own), a comment after a blank, blank lines, and runs of spacing. A script that
// differs in any command there is another script.
#pragma once

#include <cstdint>
#include <string_view>

#include <cstddef>
#include <string>

namespace jfp {

// On the submit path, so bounded: over the whole 16 KiB head the hash took bench/hotpath.cc's job_submit p50
// from 5.7 to 18.7 us (1-50 KB scripts); comment lines cost a memchr, the rest about 1 ns a byte.
inline constexpr size_t kFingerprintBytes = 2048;

// 0 when there is nothing to identify: empty, binary (NUL bytes), or comments and blanks only.
uint64_t script_fingerprint(std::string_view script);

// The text the hash is taken over, one normalised line per '\n' (for tests and `jfp scripts`).
std::string normalized_script(std::string_view script);

}  // namespace jfp
