// Every external program the jfp CLI runs (sacct, squeue, gzip, diff, Lmod's spider, slurmctld -V) goes
// through here: an argument vector and no shell, so a job name, a path or a --sacct-arg reaches the program
// as written; standard output read whole up to a cap, or streamed; standard error kept (capped) for the one
// error a failure gives: "<program> exited with status N: <its first stderr line>; <what to do>".
// CLI only: the slurmctld plugin must never fork.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace jfp {

// A program that could not run, was killed, exited with a status its caller does not accept, or wrote more
// than its caller reads.
class SubprocessError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct SubprocessOptions {
    size_t max_stdout = 64u << 20;  // run_program: more than this is an error, never a silent cut
    size_t max_stderr = 64u << 10;  // kept for the message; the rest is read and dropped
    int stdin_fd = -1;              // the child's standard input; -1: /dev/null
    std::vector<int> ok_status = {0};  // exit statuses that are not a failure (diff: 0 and 1)
    std::string hint;               // what the user can do, appended to every error
    std::string name;               // how errors name the program ("gzip -dc FILE"); empty: argv[0]
};

struct SubprocessResult {
    int exit_status = 0;  // one of the options' ok_status
    std::string out;      // standard output (empty when streamed)
    std::string err;      // standard error, at most max_stderr bytes
};

// Runs argv[0] (looked up on PATH when it has no '/') with argv, its standard output read whole.
SubprocessResult run_program(const std::vector<std::string> &argv, const SubprocessOptions &opt = {});

// A running program whose standard output the caller reads as it comes (sacct's exports, gzip -dc): no cap
// on it. finish() waits and throws as run_program does; a reader dropped before finish() kills the program.
class ProgramReader {
public:
    ProgramReader(const std::vector<std::string> &argv, const SubprocessOptions &opt = {});
    ~ProgramReader();
    ProgramReader(const ProgramReader &) = delete;
    ProgramReader &operator=(const ProgramReader &) = delete;

    std::FILE *out() const { return out_; }
    const std::string &program() const { return program_; }
    SubprocessResult finish();
    // After the reader of out() failed: reads the rest, waits, and throws the program's own failure if it
    // had one (an empty or cut output is then the program's fault, not the format's); returns if it had not.
    void finish_after_error();

private:
    std::string program_;
    SubprocessOptions opt_;
    pid_t pid_ = -1;
    std::FILE *out_ = nullptr;
    std::thread err_reader_;
    std::string err_;
};

// Runs argv with its standard output given to READ (a std::FILE *) as it comes, then waits: the program's
// failure is the error, else READ's.
template <class F> void read_program_output(const std::vector<std::string> &argv, const SubprocessOptions &opt, F &&read) {
    ProgramReader p(argv, opt);
    try {
        read(p.out());
    } catch (...) {
        p.finish_after_error();
        throw;
    }
    p.finish();
}

// "<program> exited with status N: <first line of err>" (or "was killed by signal N (NAME)"), for a wait
// status; no hint.
std::string describe_exit(const std::string &program, int wait_status, const std::string &err);

}  // namespace jfp
