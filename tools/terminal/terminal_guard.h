// What jfp's commands print comes partly from users: job names, comments, scripts, submit lines. On a
// terminal a control sequence in them would act (set the title, clear the screen, move the cursor over
// a row, reorder text with a bidi override) instead of showing. So when standard output is a terminal,
// everything written to it, by jfp or by a child it runs (diff), passes through the one escaper
// (model/util/text.h, printable(), newlines and tabs kept) on its way there. Into a file or a pipe the
// bytes stay exact: `jfp scripts show JOB > job.sh` gives the script that ran.
// test/source/user_text.sh checks that the CLI installs it and that nothing writes around it.
#pragma once

#include <thread>

namespace jfp {

class TerminalGuard {
public:
    // Installs itself when standard output is a terminal; otherwise does nothing.
    TerminalGuard();
    // Flushes what is pending and puts standard output back.
    ~TerminalGuard();
    TerminalGuard(const TerminalGuard &) = delete;
    TerminalGuard &operator=(const TerminalGuard &) = delete;
    bool active() const { return tty_ >= 0; }

private:
    int tty_ = -1;  // the terminal, where escaped text goes
    std::thread pump_;
};

}  // namespace jfp
