// A script's commands as the shell reads them, written so that two scripts bash runs alike read alike: what
// script_fingerprint hashes. By the shell's own rules (POSIX 2.2-2.9), not a list of tricks:
//   - spacing runs are one blank, none at either end; a '#' that starts a word outside quotes ends the line
//     (2.3: "exit 2;#v2" is "exit 2"); a line's final ';' ends what the newline ends;
//   - a backslash-newline outside quotes is removed (2.2.1: a continuation joins its lines);
//   - quotes and backslashes around characters they do not change are removed (2.6.7 quote removal applied
//     where quoting has no effect: "srun" is srun, 'a b' stays quoted);
//   - a null command is dropped: ':' or 'true' with literal words, no expansion and no redirection (2.14: ':'
//     only expands its words; 'true' does nothing) - ': > f' truncates f and stays, as does ': ${X:=1}'.
// Not seen (docs/features.md): a command added that does something harmless (echo), here-documents and
// bash -c, renamed variables.
#pragma once

#include <cstddef>
#include <string_view>

namespace jfp {

// Whether a line is a comment: '#' after at most 64 blanks (a longer indent is read as a line).
bool comment_line(std::string_view line);

// Writes one logical line's normalised text: feed it the raw lines of a command in turn (line() says
// whether the next raw line continues it), then finish(). At most cap bytes are written; input past what
// fills them is read no further.
class LineNormalizer {
public:
    LineNormalizer(char *out, size_t cap) : out_(out), cap_(cap) {}
    // Reads one raw line (without its '\n'); true when it ends in a continuation.
    bool line(std::string_view raw);
    // Ends the logical line: drops a final ';' and a null command; returns the bytes it holds.
    size_t finish();

private:
    char *out_;
    size_t cap_, n_ = 0;
    bool pending_blank_ = false, word_start_ = true, open_quote_ = false;
};

}  // namespace jfp
