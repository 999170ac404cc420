// What identifies a job name across the ways a user can write it: the history is keyed by this, not by the
// name's bytes. Unicode's own rules, from ICU: compatibility folding with case folding
// (NFKC_Casefold, which also drops default-ignorable characters: zero-width and bidirectional controls),
// decomposed (NFD) with its nonspacing marks dropped (accents, stacked marks), no white space or other
// controls, then the confusable skeleton of Unicode TR39 (ICU's spoof checker) case folded again (its
// prototypes are of either case: '0' is 'O'), so that "d00med" is "doomed", and "Wrf_Run", "wrf_run\t", "wrf\u200b_run" and "wrf_rսn" (an Armenian letter) are one name. The series
// (the name without its run number or version) is cut from the folded name, before the skeleton maps
// digits to letters. Not for display: messages quote the name as the user wrote it.
#pragma once

#include <string>
#include <string_view>

namespace jfp {

// The first kNameIdentityBytes of a name are read (Slurm allows 1024; what makes names differ sits early).
inline constexpr size_t kNameIdentityBytes = 256;
// Of the folded name, the first kNameIdentityChars characters (what the ASCII table makes of 256 bytes is never
// more): a character that folds to many (U+FDFA to 18) cannot make the skeleton's work 18 times longer.
inline constexpr size_t kNameIdentityChars = 256;

struct NameIdentity {
    std::string name;    // the folded skeleton of the folded name
    std::string series;  // the skeleton of the folded name's stem (name_stem, then a version mark: "_v")
};

// UTF-8 in and out; bytes that are not UTF-8 are read as U+FFFD. A name of ASCII takes a table made from
// ICU at first use; any other name goes through ICU itself.
NameIdentity name_identity(std::string_view name);

// The same through ICU for every name (the table's reference; tests compare the two).
NameIdentity name_identity_icu(std::string_view name);

}  // namespace jfp
