// A job script's identity beyond its name: a renamed copy of a failing script keeps that script's history.
// The hash covers the script's commands as script_normalizer.h writes them (what does not change what bash
// runs left out: comments, #SBATCH and #! lines, blank lines, spacing, continuations, null commands where
// bash does not need them): the first kFingerprintBytes of that text and, past it, the last
// kFingerprintTailBytes (two applications behind one long preamble differ at the end). A command that does
// something, even something harmless (echo), or a word quoted otherwise, makes another script
// (docs/features.md says so).
#pragma once

#include <cstdint>
#include <string_view>

#include <cstddef>
#include <string>

namespace jfp {

// On the submit path, so bounded. bench/hotpath.cc (scripts of 1-50 KB, dense with commands), job_submit's
// p50 against the tree walk's: 0.7-0.8 without the hash; 2.7 over the whole 16 KiB head; 1.1-1.35 over
// 2 KiB of normalised text; 1.0 over 1 KiB (goal 1.25). Comment lines cost a memchr, the rest about 1.7 ns
// a byte.
inline constexpr size_t kFingerprintBytes = 1024;
// The tail taken when the head fills: whole logical lines from the end until they hold this much.
inline constexpr size_t kFingerprintTailBytes = 512;
// Room in the tail for null commands that stay (':' and a newline each; past it the tail's end is cut).
inline constexpr size_t kTailNullRoom = 256;
// The normalised text's most: the head and its '\n', a separator, the tail.
inline constexpr size_t kNormalizedScriptBytes = kFingerprintBytes + 2 * kFingerprintTailBytes + kTailNullRoom + 4;
// How far into a script comment lines are passed over (one memchr: 2-6 us for 256 KiB, measured warm), and
// how many of them (5.6 ns a line measured at -O1: 16,384 lines of "#" cost about 90 us, 131,072 would 0.7 ms).
inline constexpr size_t kFingerprintReach = size_t{256} << 10, kFingerprintCommentLines = 16384;

// 0 when there is nothing to identify: empty, binary (NUL bytes), or comments and blanks only.
uint64_t script_fingerprint(std::string_view script);

// The text the hash is taken over, one normalised line per '\n' (for tests and `jfp scripts`).
std::string normalized_script(std::string_view script);

}  // namespace jfp
