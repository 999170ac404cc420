// The jfp command line as each subcommand defines it, without CLI11 in the subcommand's translation unit:
// CLI11's header alone costs seconds of compile time per unit, so one unit (command_line.cc) holds it,
// behind these handles. A subcommand adds its options and a callback; a bad value is a UsageError, which
// main reports as a usage error (exit status 64).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace jfp {

// A value the command line cannot take: "<option>: <why>" (or just why), reported with the usage hint.
class UsageError : public std::runtime_error {
public:
    explicit UsageError(const std::string &why) : std::runtime_error(why) {}
    UsageError(const std::string &option, const std::string &why) : std::runtime_error(option + ": " + why) {}
};

class CommandOption {
public:
    explicit CommandOption(CLI::Option *o) : o_(o) {}
    CommandOption *capture_default_str();  // --help shows the default
    CommandOption *required();
    CommandOption *range(double lo, double hi);  // the value within [lo, hi]
    CommandOption *range(int lo, int hi);
    CommandOption *range(unsigned long lo, unsigned long hi);
    CommandOption *positive();                   // the value > 0
    CommandOption *one_of(std::initializer_list<const char *> values);
    CommandOption *excludes(CommandOption *other);

private:
    CLI::Option *o_;
};

class Command {
public:
    explicit Command(CLI::App *app) : app_(app) {}
    Command *add_subcommand(const std::string &name, const std::string &description);
    void require_subcommand(int n);
    void footer(const std::string &text);
    // Runs after the whole command line parsed; what it throws is the command's error.
    void callback(std::function<void()> f);

    CommandOption *add_option(const std::string &name, std::string &v, const std::string &help);
    CommandOption *add_option(const std::string &name, double &v, const std::string &help);
    CommandOption *add_option(const std::string &name, int &v, const std::string &help);
    CommandOption *add_option(const std::string &name, long &v, const std::string &help);
    CommandOption *add_option(const std::string &name, long long &v, const std::string &help);
    CommandOption *add_option(const std::string &name, unsigned long &v, const std::string &help);
    CommandOption *add_option(const std::string &name, unsigned long long &v, const std::string &help);
    CommandOption *add_option(const std::string &name, std::vector<std::string> &v, const std::string &help);
    CommandOption *add_option(const std::string &name, std::vector<unsigned long> &v, const std::string &help);
    // "--x" sets v; "!--no-x" clears it.
    CommandOption *add_flag(const std::string &name, bool &v, const std::string &help);

private:
    CommandOption *keep(CLI::Option *o);
    CLI::App *app_;
    std::deque<CommandOption> options_;
    std::deque<Command> subcommands_;
};

// The jfp program: its subcommands added to root(), then run() parses argv and runs the one given.
class CommandLine {
public:
    explicit CommandLine(const std::string &description);
    ~CommandLine();
    Command &root() { return *root_; }
    // The exit status: 64 for a usage error, 1 for a failed command, else the command's (exit_status).
    int run(int argc, char **argv, const std::function<int()> &exit_status, const std::string &version);

private:
    std::unique_ptr<CLI::App> app_;
    std::unique_ptr<Command> root_;
};

}  // namespace jfp
