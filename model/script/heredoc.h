// Here-documents in a shell script: the lines of a body are text the script writes (another script, a
// config file), not commands of its own. Used by the scanners that read a batch script's lines (the
// #SBATCH lines sbatch ignored, the modules it loads): a line inside a body is never reported.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace jfp {

class HeredocTracker {
public:
    // Call for every line in order. True: the line is inside a here-document's body (skip it).
    bool in_body(std::string_view line);
    // Call for a command line (not a body line): the here-documents it opens. Their bodies begin after
    // the whole command, so a line ending in a backslash continues it.
    void command(std::string_view line);
    // The same for a line the caller knows holds no '<' (it searched the whole text once): no parse.
    void plain_command(std::string_view line) {
        continued_ = !line.empty() && line.back() == '\\';
        if (!continued_ && !pending_.empty()) in_bodies_ = true;
    }
    bool continued() const { return continued_; }

private:
    struct Heredoc {
        std::string word;
        bool strip_tabs = false;
    };
    std::vector<Heredoc> pending_;
    size_t open_ = 0;
    bool in_bodies_ = false;
    bool continued_ = false;
    static void opened(std::string_view line, std::vector<Heredoc> &out);
    static std::string delimiter_at(std::string_view line, size_t &i);
};

}  // namespace jfp
