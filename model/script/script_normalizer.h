// A script's commands as the shell reads them, written so that two scripts bash runs alike read alike: what
// script_fingerprint hashes. By the shell's own rules (POSIX 2.2-2.9), and only where they cannot merge two
// scripts bash runs differently (the worst outcome: a fixed script judged on the broken one's history):
//   - spacing runs are one blank, none at either end; a '#' that starts a word outside quotes ends the line
//     (2.3: "exit 2;#v2" is "exit 2"); a line's final ';' ends what the newline ends, where bash allows one;
//   - a backslash-newline outside quotes is removed (2.2.1: a continuation joins its lines);
//   - a null command (':' or 'true' with literal words, no expansion, no redirection: 2.14) is written ':'
//     and goes unless it is all of a body ("then", ":", "fi": without it bash refuses the script), part of
//     the command before ("cmd &&", ":"), or the script's last command (its exit status is the job's). ': > f' truncates f and stays, as does ': ${X:=1}'.
// Quotes stay as written: removing those that look inert merged scripts bash runs otherwise.
// Not seen (docs/features.md): a quoted command word, a command added that does something harmless (echo),
// here-documents and bash -c, renamed variables. Here-document bodies and multi-line strings are read as
// commands (spacing and comment lines left out), as before; after the first of either, null commands stay
// (a body's ':' or 'true' line is text, not a command).
#pragma once

#include <cstddef>
#include <string_view>

namespace jfp {

// Whether a normalised line ends with what opens a body ("then", "do", "{", a case pattern's ')'), and
// whether one starts with what closes one ("fi", "done", "}", ";;"): a null command between the two is all
// of the body.
bool opens_body(std::string_view line);
bool closes_body(std::string_view line);

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
    // Ends the logical line: drops a final ';' where bash allows it, writes a null command as ':'; returns
    // the bytes it holds.
    size_t finish();
    // The line ended by finish() is a null command.
    bool null() const { return null_; }
    // It leaves a quote open: the lines after it are the quote's text, until it closes.
    bool open_quote() const { return open_quote_; }

private:
    char *out_;
    size_t cap_, n_ = 0;
    bool pending_blank_ = false, word_start_ = true, open_quote_ = false, null_ = false, truncated_ = false;
};

}  // namespace jfp
