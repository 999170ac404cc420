#include "tools/cli/help_format.h"

#include <sstream>

namespace jfp {

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

std::shared_ptr<CLI::Formatter> help_formatter() { return std::make_shared<JfpFormatter>(); }

void name_subcommand_groups(CLI::App &app) {
    for (CLI::App *sub : app.get_subcommands({})) {
        if (!sub->get_name().empty()) sub->group("Subcommands");
        name_subcommand_groups(*sub);
    }
}

}  // namespace jfp
