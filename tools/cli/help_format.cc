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

class JfpFormatter : public CLI::Formatter {
public:
    JfpFormatter() { column_width(kLeft); }

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
        // As CLI11 lays out an option (its own helper for this is internal and moved between releases).
        std::string name = "  " + sub->get_display_name(true);
        std::string desc = wrap_words(sub->get_description(), kHelpWidth - kLeft);
        std::string out = name;
        if (name.size() >= kLeft) out += "\n" + std::string(kLeft, ' ');
        else out += std::string(kLeft - name.size(), ' ');
        for (char c : desc) {
            out += c;
            if (c == '\n') out += std::string(kLeft, ' ');
        }
        return out + "\n";
    }

    std::string make_description(const CLI::App *app) const override {
        std::string d = CLI::Formatter::make_description(app);
        return d.empty() ? d : wrap_words(d, kHelpWidth) + "\n";
    }

    std::string make_footer(const CLI::App *app) const override {
        std::string f = app->get_footer();
        if (f.empty()) return "";
        std::string out;
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

}  // namespace jfp
