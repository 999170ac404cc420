#include "tools/terminal/terminal_guard.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include "model/util/text.h"

namespace jfp {

namespace {

void write_all(int fd, const std::string &s) {
    size_t off = 0;
    while (off < s.size()) {
        ssize_t n = ::write(fd, s.data() + off, s.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // the terminal went away: nothing more to show
        off += static_cast<size_t>(n);
    }
}

// The end of the last whole character in s (a multi-byte character cut by a read waits for its rest).
size_t whole_prefix(const std::string &s) {
    size_t end = s.size();
    for (size_t back = 1; back <= 3 && back <= s.size(); ++back) {
        auto c = static_cast<unsigned char>(s[s.size() - back]);
        if ((c & 0xc0) == 0x80) continue;  // a continuation byte: look further back
        size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
        if (need > back) end = s.size() - back;
        break;
    }
    return end;
}

}  // namespace

TerminalGuard::TerminalGuard() {
    if (!isatty(STDOUT_FILENO)) return;
    int fds[2];
    if (::pipe(fds) != 0) return;
    std::fflush(stdout);
    int tty = ::dup(STDOUT_FILENO);
    if (tty < 0 || ::dup2(fds[1], STDOUT_FILENO) < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        if (tty >= 0) ::close(tty);
        return;
    }
    ::close(fds[1]);
    tty_ = tty;
    int in = fds[0];
    pump_ = std::thread([in, tty] {
        std::string pending;
        char buf[1 << 16];
        while (true) {
            ssize_t n = ::read(in, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            pending.append(buf, static_cast<size_t>(n));
            size_t cut = whole_prefix(pending);
            write_all(tty, printable(std::string_view(pending).substr(0, cut), std::string::npos, true));
            pending.erase(0, cut);
        }
        if (!pending.empty()) write_all(tty, printable(pending, std::string::npos, true));
        ::close(in);
    });
}

TerminalGuard::~TerminalGuard() {
    if (tty_ < 0) return;
    std::fflush(stdout);
    // Standard output back on the terminal closes the pipe's last write end: the pump sees its end.
    ::dup2(tty_, STDOUT_FILENO);
    if (pump_.joinable()) pump_.join();
    ::close(tty_);
}

}  // namespace jfp
