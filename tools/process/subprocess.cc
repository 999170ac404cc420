#include "tools/process/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

extern char **environ;

namespace jfp {

namespace {

std::string with_hint(std::string what, const std::string &hint) { return hint.empty() ? what : what + "; " + hint; }

std::string first_line(const std::string &err) {
    size_t b = 0;
    // The first line that says something: a program may start with a blank line.
    while (b < err.size()) {
        size_t e = err.find('\n', b);
        if (e == std::string::npos) e = err.size();
        std::string line = err.substr(b, e - b);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
        if (!line.empty()) return line.size() > 300 ? line.substr(0, 300) + " ..." : line;
        b = e + 1;
    }
    return "";
}

void close_fd(int &fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

}  // namespace

std::string describe_exit(const std::string &program, int wait_status, const std::string &err) {
    std::string what;
    if (WIFEXITED(wait_status)) what = program + " exited with status " + std::to_string(WEXITSTATUS(wait_status));
    else if (WIFSIGNALED(wait_status))
        what = program + " was killed by signal " + std::to_string(WTERMSIG(wait_status)) + " (" + strsignal(WTERMSIG(wait_status)) + ")";
    else what = program + " ended with wait status " + std::to_string(wait_status);
    std::string line = first_line(err);
    return line.empty() ? what : what + ": " + line;
}

ProgramReader::ProgramReader(const std::vector<std::string> &argv, const SubprocessOptions &opt) : opt_(opt) {
    if (argv.empty() || argv[0].empty()) throw SubprocessError(with_hint("no program to run", opt.hint));
    program_ = opt.name.empty() ? argv[0] : opt.name;
    int out[2] = {-1, -1}, err[2] = {-1, -1};
    int null_fd = -1;
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 ||
        (opt.stdin_fd < 0 && (null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)) {
        int e = errno;
        close_fd(out[0]), close_fd(out[1]), close_fd(err[0]), close_fd(err[1]);
        throw SubprocessError(with_hint("cannot run " + program_ + ": " + std::strerror(e), opt.hint));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, opt.stdin_fd >= 0 ? opt.stdin_fd : null_fd, 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    // The child starts with default signal handling: a program that writes to a closed pipe ends.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    std::vector<char *> args;
    for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    // glibc's posix_spawnp reports a failed exec (no such program, not executable) as its result.
    int rc = posix_spawnp(&pid_, argv[0].c_str(), &fa, &attr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close_fd(out[1]), close_fd(err[1]), close_fd(null_fd);
    if (rc != 0) {
        pid_ = -1;
        close_fd(out[0]), close_fd(err[0]);
        throw SubprocessError(with_hint("cannot run " + program_ + ": " + std::strerror(rc), opt.hint));
    }
    out_ = ::fdopen(out[0], "rb");
    // Standard error is drained beside the reader: a program that fills the pipe's 64 KiB while its
    // standard output is read would otherwise wait for ever.
    int err_fd = err[0];
    size_t cap = opt.max_stderr;
    err_reader_ = std::thread([this, err_fd, cap] {
        char buf[4096];
        ssize_t n;
        while ((n = ::read(err_fd, buf, sizeof buf)) != 0) {
            if (n < 0) {
                if (errno == EINTR) continue;
                break;
            }
            if (err_.size() < cap) err_.append(buf, std::min(static_cast<size_t>(n), cap - err_.size()));
        }
        ::close(err_fd);
    });
    if (!out_) {
        const int e = errno;
        ::close(out[0]);
        ::kill(pid_, SIGKILL);
        try {
            finish();
        } catch (const SubprocessError &) {
        }
        throw SubprocessError(with_hint("cannot read the output of " + program_ + ": " + std::strerror(e), opt.hint));
    }
}

ProgramReader::~ProgramReader() {
    if (pid_ < 0) return;
    ::kill(pid_, SIGKILL);
    if (out_) std::fclose(out_);
    int status;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    if (err_reader_.joinable()) err_reader_.join();
}

SubprocessResult ProgramReader::finish() {
    // Once only: waitpid(-1) would reap any child of the process.
    if (pid_ < 0) throw SubprocessError(program_ + " was already waited for");
    if (out_) std::fclose(out_);
    out_ = nullptr;
    int status = 0;
    pid_t w;
    while ((w = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    if (err_reader_.joinable()) err_reader_.join();
    if (w < 0) throw SubprocessError(with_hint("cannot wait for " + program_ + ": " + std::strerror(errno), opt_.hint));
    SubprocessResult r;
    r.err = std::move(err_);
    if (WIFEXITED(status) && std::find(opt_.ok_status.begin(), opt_.ok_status.end(), WEXITSTATUS(status)) != opt_.ok_status.end()) {
        r.exit_status = WEXITSTATUS(status);
        return r;
    }
    throw SubprocessError(with_hint(describe_exit(program_, status, r.err), opt_.hint));
}

void ProgramReader::finish_after_error() {
    if (pid_ < 0) return;
    char buf[65536];
    while (out_ && std::fread(buf, 1, sizeof buf, out_) > 0) {
    }
    finish();
}

SubprocessResult run_program(const std::vector<std::string> &argv, const SubprocessOptions &opt) {
    ProgramReader p(argv, opt);
    std::string out;
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p.out())) > 0) {
        if (out.size() + n > opt.max_stdout)
            throw SubprocessError(with_hint(p.program() + " wrote more than " + std::to_string(opt.max_stdout) +
                                                " bytes, more than jfp reads of it",
                                            opt.hint));
        out.append(buf, n);
    }
    SubprocessResult r = p.finish();
    r.out = std::move(out);
    return r;
}

}  // namespace jfp
