#include "tools/options/command_line.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <sstream>

#include "model/util/text.h"

namespace jfp {

// ---- the help format: --help that reads on an 100-column terminal: descriptions wrapped beside a 30-column
// left side, value types as plain words (FLOAT, not "FLOAT:FLOAT in [1 - 86400]": the range goes into the
// description), and no CLI11 flag markup ("--no-queue{false}").

constexpr size_t kHelpWidth = 100;
std::string wrap_words(const std::string &text, size_t width);

namespace {


constexpr size_t kLeft = 30;

// "FLOAT:FLOAT in [1 - 86400]" -> {"FLOAT", "1 - 86400"}; "TEXT" -> {"TEXT", ""}.
std::pair<std::string, std::string> split_type(const std::string &type) {
    std::string base = type.substr(0, type.find(':'));
    auto open = type.find('['), close = type.rfind(']');
    std::string range = open != std::string::npos && close != std::string::npos && close > open
                            ? type.substr(open + 1, close - open - 1)
                            : "";
    return {base, range};
}

// CLI11 2.6 names its default groups in capitals ("OPTIONS"), earlier releases did not; jfp's own group
// names are left as they are written.
std::string title_case(const std::string &label) {
    if (label == "OPTIONS") return "Options";
    if (label == "POSITIONALS") return "Positionals";
    return label;
}

// "  name" in a kLeft-column left side (or a line of its own when longer), then the description, already
// wrapped to the right side's width, its later lines indented to it.
std::string two_columns(const std::string &left, const std::string &desc) {
    std::string out = left;
    if (left.size() >= kLeft) out += "\n" + std::string(kLeft, ' ');
    else out += std::string(kLeft - left.size(), ' ');
    for (char c : desc) {
        out += c;
        if (c == '\n') out += std::string(kLeft, ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
}


// The help reads the same whichever CLI11 release jfp was built with (2.1 in Debian 12, 2.6 in sid).
class JfpFormatter : public CLI::Formatter {
public:
    JfpFormatter() {
        column_width(kLeft);
    }

    std::string make_help(const CLI::App *app, std::string name, CLI::AppFormatMode mode) const override {
        if (mode == CLI::AppFormatMode::Sub) return CLI::Formatter::make_help(app, name, mode);
        // Composed here, not by the release's make_help: its blank lines differ between releases.
        std::string out = make_description(app);
        while (!out.empty() && out.back() == '\n') out.pop_back();
        if (!out.empty()) out += "\n\n";
        out += make_usage(app, std::move(name)) + make_positionals(app) + make_groups(app, mode) +
               make_subcommands(app, mode) + make_footer(app);
        while (!out.empty() && out.back() == '\n') out.pop_back();
        return out + "\n";
    }

    std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option *> opts) const override {
        return CLI::Formatter::make_group(title_case(group), is_positional, std::move(opts));
    }

    std::string make_usage(const CLI::App *app, std::string name) const override {
        // 2.6 prints the program's name without "Usage:" before it, and a blank line first.
        std::string usage = CLI::Formatter::make_usage(app, name);
        size_t start = usage.find_first_not_of('\n');
        if (start == std::string::npos) return usage;
        usage.erase(0, start);
        while (!usage.empty() && usage.back() == '\n') usage.pop_back();
        if (usage.compare(0, 6, "Usage:") != 0) usage = "Usage: " + usage;
        return usage + "\n";
    }

    std::string make_option(const CLI::Option *opt, bool positional) const override {
        // One layout on every release (2.6 puts long options in a column of their own).
        return two_columns("  " + make_option_name(opt, positional) + make_option_opts(opt), make_option_desc(opt));
    }

    std::string make_option_name(const CLI::Option *opt, bool positional) const override {
        std::string name = CLI::Formatter::make_option_name(opt, positional);
        // "!--no-queue" is shown as "--no-queue{false}": the negation is the option's whole meaning.
        for (auto b = name.find('{'); b != std::string::npos; b = name.find('{')) {
            auto e = name.find('}', b);
            if (e == std::string::npos) break;
            name.erase(b, e - b + 1);
        }
        return name;
    }

    std::string make_option_opts(const CLI::Option *opt) const override {
        if (opt->get_type_size() == 0) return "";
        std::string out = " " + split_type(opt->get_type_name()).first;
        if (!opt->get_default_str().empty()) out += "=" + opt->get_default_str();
        if (opt->get_expected_max() > 1) out += " ...";  // repeatable
        if (opt->get_required()) out += " (required)";
        return out;
    }

    std::string make_option_desc(const CLI::Option *opt) const override {
        std::string desc = opt->get_description();
        std::string range = split_type(opt->get_type_name()).second;
        if (!range.empty()) desc += " (" + range + ")";
        return wrap_words(desc, kHelpWidth - kLeft);
    }

    std::string make_subcommand(const CLI::App *sub) const override {
        return two_columns("  " + sub->get_display_name(true), wrap_words(sub->get_description(), kHelpWidth - kLeft));
    }

    std::string make_description(const CLI::App *app) const override {
        std::string d = CLI::Formatter::make_description(app);
        return wrap_words(d, kHelpWidth);
    }

    std::string make_footer(const CLI::App *app) const override {
        std::string f = app->get_footer();
        if (f.empty()) return "";
        std::string out = "\n";  // a blank line after the options
        std::istringstream lines(f);
        for (std::string line; std::getline(lines, line);) out += wrap_words(line, kHelpWidth) + "\n";
        return out;
    }
};

}  // namespace

std::string wrap_words(const std::string &text, size_t width) {
    std::string out, line;
    std::istringstream paragraphs(text);
    bool first_paragraph = true;
    for (std::string para; std::getline(paragraphs, para);) {
        if (!first_paragraph) out += "\n";
        first_paragraph = false;
        line.clear();
        std::istringstream words(para);
        bool first_line = true;
        for (std::string w; words >> w;) {
            if (!line.empty() && line.size() + 1 + w.size() > width) {
                out += (first_line ? "" : "\n") + line;
                first_line = false;
                line.clear();
            }
            line += (line.empty() ? "" : " ") + w;
        }
        if (!line.empty()) out += (first_line ? "" : "\n") + line;
    }
    return out;
}


namespace {

// Every subcommand, at any depth, listed under "Subcommands" (CLI11 2.6's default is "SUBCOMMANDS").
void name_subcommand_groups(CLI::App &app) {
    for (CLI::App *sub : app.get_subcommands({})) {
        if (!sub->get_name().empty()) sub->group("Subcommands");
        name_subcommand_groups(*sub);
    }
}

// ---- the handles the subcommands define their options through

// A command's own error (std::exception) is the program's error; a bad value (UsageError) is CLI11's, so
// that it is reported as a usage error, as CLI11's own are.
std::function<void()> usage_errors_as_cli11(std::function<void()> f) {
    return [f = std::move(f)] {
        try {
            f();
        } catch (const UsageError &e) {
            throw CLI::ValidationError(e.what());
        }
    };
}

}  // namespace

CommandOption *CommandOption::capture_default_str() {
    o_->capture_default_str();
    return this;
}
CommandOption *CommandOption::required() {
    o_->required();
    return this;
}
CommandOption *CommandOption::range(double lo, double hi) {
    o_->check(CLI::Range(lo, hi));
    return this;
}
CommandOption *CommandOption::range(int lo, int hi) {
    o_->check(CLI::Range(lo, hi));
    return this;
}
CommandOption *CommandOption::range(unsigned long lo, unsigned long hi) {
    o_->check(CLI::Range(lo, hi));
    return this;
}
CommandOption *CommandOption::positive() {
    o_->check(CLI::PositiveNumber);
    return this;
}
CommandOption *CommandOption::one_of(std::initializer_list<const char *> values) {
    o_->check(CLI::IsMember(std::vector<std::string>(values.begin(), values.end())));
    return this;
}
CommandOption *CommandOption::excludes(CommandOption *other) {
    o_->excludes(other->o_);
    return this;
}

Command *Command::add_subcommand(const std::string &name, const std::string &description) {
    subcommands_.emplace_back(app_->add_subcommand(name, description));
    return &subcommands_.back();
}
void Command::require_subcommand(int n) { app_->require_subcommand(n); }
void Command::footer(const std::string &text) { app_->footer(text); }
void Command::callback(std::function<void()> f) { app_->callback(usage_errors_as_cli11(std::move(f))); }

CommandOption *Command::keep(CLI::Option *o) {
    options_.emplace_back(o);
    return &options_.back();
}
CommandOption *Command::add_option(const std::string &name, std::string &v, const std::string &help) { return keep(app_->add_option(name, v, help)); }
CommandOption *Command::add_option(const std::string &name, double &v, const std::string &help) { return keep(app_->add_option(name, v, help)); }
CommandOption *Command::add_option(const std::string &name, int &v, const std::string &help) { return keep(app_->add_option(name, v, help)); }
CommandOption *Command::add_option(const std::string &name, long &v, const std::string &help) { return keep(app_->add_option(name, v, help)); }
CommandOption *Command::add_option(const std::string &name, long long &v, const std::string &help) { return keep(app_->add_option(name, v, help)); }
CommandOption *Command::add_option(const std::string &name, unsigned long &v, const std::string &help) { return keep(app_->add_option(name, v, help)); }
CommandOption *Command::add_option(const std::string &name, unsigned long long &v, const std::string &help) { return keep(app_->add_option(name, v, help)); }
CommandOption *Command::add_option(const std::string &name, std::vector<std::string> &v, const std::string &help) { return keep(app_->add_option(name, v, help)); }
CommandOption *Command::add_option(const std::string &name, std::vector<unsigned long> &v, const std::string &help) { return keep(app_->add_option(name, v, help)); }
CommandOption *Command::add_flag(const std::string &name, bool &v, const std::string &help) { return keep(app_->add_flag(name, v, help)); }

// ---- the program

CommandLine::CommandLine(const std::string &description) : app_(std::make_unique<CLI::App>(description)) {
    app_->require_subcommand(0, 1);
    app_->fallthrough(false);
    app_->formatter(std::make_shared<JfpFormatter>());  // subcommands inherit it
    root_ = std::make_unique<Command>(app_.get());
}

CommandLine::~CommandLine() = default;

int CommandLine::run(int argc, char **argv, const std::function<int()> &exit_status, const std::string &version) {
    bool show_version = false;
    app_->add_flag("--version", show_version, "print the version and exit");
    name_subcommand_groups(*app_);
    try {
        app_->parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        // CLI11's own codes (105 for a bad value, 109 for an extra argument...) would collide with nothing
        // documented and say nothing to a script: a usage error is 64 (sysexits' EX_USAGE); --help is 0.
        return app_->exit(e) == 0 ? 0 : 64;
    } catch (const std::exception &e) {
        // A message may quote what a user wrote (a job name, a line of an export): escaped once more here.
        std::fprintf(stderr, "jfp: error: %s\n", printable(e.what(), std::string::npos, true).c_str());
        return 1;
    }
    if (show_version) {
        std::printf("%s\n", version.c_str());
        return 0;
    }
    if (app_->get_subcommands().empty()) {
        std::fputs(app_->help().c_str(), stdout);
        return 0;
    }
    return exit_status();
}

}  // namespace jfp
