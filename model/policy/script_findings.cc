#include "model/policy/script_findings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/policy/policy.h"
#include "model/script/script_mentions.h"
#include "model/util/text.h"

namespace jfp {

namespace {

// The option a directive sets, as sbatch would parse its first word: "--mem=64G" -> "--mem", "-t" -> "-t".
std::string option_of(std::string_view text) {
    text.remove_prefix(std::min<size_t>(7, text.size()));  // "#SBATCH"
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    size_t end = 0;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t' && text[end] != '=') ++end;
    std::string opt(text.substr(0, end));
    if (opt.size() > 2 && opt[0] == '-' && opt[1] != '-') opt = opt.substr(0, 2);  // "-t10" -> "-t"
    return opt;
}

std::string number(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f", v);
    return b;
}

// What the job asks for in place of the ignored option, when jfp knows it; empty otherwise.
std::string instead(const std::string &opt, const JobRequest &r) {
    if ((opt == "--mem" || opt == "--mem-per-cpu" || opt == "--mem-per-gpu") && known(r.req_mem_mb))
        return "the job asks for " + number(r.req_mem_mb) + " MB of memory";
    if ((opt == "-t" || opt == "--time") && known(r.timelimit_min))
        return std::isinf(r.timelimit_min) ? std::string("the job has no time limit")
                                           : "the job's time limit is " + number(r.timelimit_min) + " minutes";
    if ((opt == "-p" || opt == "--partition") && !r.partition.empty())
        return "the job goes to partition " + quote_for_message(r.partition, 40);
    if ((opt == "-n" || opt == "--ntasks" || opt == "-c" || opt == "--cpus-per-task") && known(r.req_cpus))
        return "the job asks for " + number(r.req_cpus) + " CPU" + (r.req_cpus == 1 ? "" : "s");
    if ((opt == "-N" || opt == "--nodes") && known(r.req_nodes))
        return "the job asks for " + number(r.req_nodes) + " node" + (r.req_nodes == 1 ? "" : "s");
    if ((opt == "-G" || opt == "--gpus" || opt == "--gres") && known(r.req_gpus))
        return "the job asks for " + number(r.req_gpus) + " GPU" + (r.req_gpus == 1 ? "" : "s");
    if ((opt == "-J" || opt == "--job-name") && !r.name.empty()) return "the job's name is " + quote_for_message(r.name, 40);
    return "";
}

}  // namespace

std::string ignored_directive_sentence(const IgnoredDirective &d, uint32_t first_command_line, const JobRequest &r) {
    std::string what = instead(option_of(d.text), r);
    std::string s = "line " + std::to_string(d.line) + ": " + quote_for_message(d.text, 80);
    if (d.why == IgnoredDirective::Why::AfterCommand) {
        s += " comes after the script's first command (line " + std::to_string(first_command_line) +
             "): sbatch ignored it";
        s += what.empty() ? "." : "; " + what + ".";
        s += " Move it above line " + std::to_string(first_command_line) + ".";
    } else {
        s += " is indented: sbatch reads #SBATCH only at the start of a line and ignored it";
        s += what.empty() ? "." : "; " + what + ".";
        s += " Remove the blanks before #SBATCH.";
    }
    return s;
}

std::vector<std::string> script_finding_sentences(std::string_view script, const ModuleIndex *index, const JobRequest &r) {
    std::vector<std::string> out;
    const ScriptMentions said = find_script_mentions(script, index != nullptr);  // one pass, as the plugin's
    DirectiveScan scan = find_ignored_directives(script, said);
    for (const auto &d : scan.ignored) out.push_back(ignored_directive_sentence(d, scan.first_command_line, r));
    if (index) {
        for (const auto &f : missing_modules(find_module_loads(script, said), *index)) out.push_back(missing_module_sentence(f));
    }
    return out;
}

std::vector<ModuleFinding> missing_modules(const ModuleScan &scan, const ModuleIndex &index, std::vector<std::string> *not_told,
                                           size_t max_found) {
    std::vector<ModuleFinding> out;
    auto skip = [&](const ModuleLoad &m, const std::string &why) {
        if (not_told && not_told->size() < 8) not_told->push_back("line " + std::to_string(m.line) + " " + m.name + ": " + why);
    };
    for (const ModuleLoad &m : scan.loads) {
        if (out.size() >= max_found) break;
        // A path (module load /opt/x/modulefile, ./mod, ../mod) is a file Lmod reads, not an index name.
        if (m.name.front() == '/' || m.name.front() == '.') {
            skip(m, "a path, not a module name");
            continue;
        }
        // One sentence per name and line ("module load R R" is one mistake).
        if (std::any_of(out.begin(), out.end(), [&](const ModuleFinding &f) { return f.load.line == m.line && f.load.name == m.name; }))
            continue;
        // The closest-name search, for the first two findings that will be told only: a line that is not
        // told (a try-load, a load after `module use`) costs one lookup, never a search.
        const bool told_if_missing = !m.after_path_change && !m.optional;
        ModuleLookup l = index.lookup(m.name, told_if_missing && out.size() < 2);
        if (l.result == ModuleLookup::Result::Found) continue;
        if (l.result == ModuleLookup::Result::BehindHierarchy) {
            skip(m, "exists behind " + (l.parents.empty() ? std::string("a hierarchy level") : l.parents.front()));
            continue;
        }
        if (m.after_path_change) {
            skip(m, "after line " + std::to_string(m.after_path_change) + ", which may add module trees");
            continue;
        }
        if (m.optional) {
            skip(m, "try-load: a missing module does not stop the script");
            continue;
        }
        out.push_back({m, std::move(l)});
    }
    return out;
}

std::string missing_module_sentence(const ModuleFinding &f) {
    const ModuleLookup &l = f.lookup;
    std::string s = "line " + std::to_string(f.load.line) + ": " + quote_for_message(f.load.text, 80) + ": ";
    if (l.result == ModuleLookup::Result::NoSuchVersion) {
        std::string want = f.load.name.size() > l.name.size() ? f.load.name.substr(l.name.size() + 1) : f.load.name;
        s += "module " + quote_for_message(l.name, 60) + " has no version " + quote_for_message(want, 40) + " on this cluster";
        if (!l.versions.empty()) {
            s += "; it has ";
            // The index's names reach the user's terminal too: escaped as everything else said there.
            for (size_t i = 0; i < l.versions.size(); ++i) s += (i ? ", " : "") + printable(l.versions[i], 80);
        }
        s += " (`module spider " + printable(l.name, 60) + "` lists them).";
        return s;
    }
    std::string base = f.load.name.substr(0, f.load.name.find('/'));
    s += "this cluster has no module " + quote_for_message(base, 60);
    if (!l.similar.empty()) {
        s += "; did you mean ";
        for (size_t i = 0; i < l.similar.size(); ++i) s += (i ? " or " : "") + printable(l.similar[i], 80);
        s += "? (`module spider " + printable(l.similar.front(), 60) + "` lists its versions)";
    } else {
        s += " (`module avail` lists what there is)";
    }
    return s + ".";
}

ScriptFindingsVerdict judge_module_findings(const Config &c, const JobRequest &r, const std::vector<ModuleFinding> &found,
                                            std::string_view comment, bool privileged) {
    ScriptFindingsVerdict v;
    if (found.empty() || c.missing_modules == FindingAction::Off) return v;
    v.found = true;
    if (c.mode == Mode::Off || c.mode == Mode::Shadow) return v;
    const bool overridden = c.allow_override && has_override(comment, c.override_token);
    v.reject = c.missing_modules == FindingAction::Reject && !overridden && !is_exempt(c, r) &&
               (!privileged || c.reject_privileged);
    std::string m = v.reject ? "jfp: job refused: " : "jfp: warning: ";
    m += found.size() == 1 ? std::string("this script loads a module this cluster does not have, so `module load` fails there:")
                           : "this script loads " + std::to_string(found.size()) +
                                 " modules this cluster does not have, so `module load` fails there:";
    for (const auto &f : found) m += "\n  " + missing_module_sentence(f);
    if (v.reject)
        m += "\n  Fix the module names and submit it again" +
             (c.allow_override ? ", or add --comment=" + c.override_token + " to submit it as it is." : std::string("."));
    v.message = std::move(m);
    return v;
}

ScriptFindingsVerdict judge_script_findings(const Config &c, const JobRequest &r, const DirectiveScan &scan,
                                            std::string_view comment, bool privileged) {
    ScriptFindingsVerdict v;
    if (scan.ignored.empty() || c.ignored_directives == FindingAction::Off) return v;
    v.found = true;
    if (c.mode == Mode::Off || c.mode == Mode::Shadow) return v;  // shadow: logged, never said
    const bool overridden = c.allow_override && has_override(comment, c.override_token);
    v.reject = c.ignored_directives == FindingAction::Reject && !overridden && !is_exempt(c, r) &&
               (!privileged || c.reject_privileged);
    const size_t n = scan.ignored.size();
    std::string m = v.reject ? "jfp: job refused: sbatch ignored " : "jfp: warning: sbatch ignored ";
    m += (n == 1 ? std::string("an #SBATCH line") : std::to_string(n) + (scan.complete ? "" : " or more") + " #SBATCH lines") +
         " of this script, so the job does not run as written:";
    for (const auto &d : scan.ignored) m += "\n  " + ignored_directive_sentence(d, scan.first_command_line, r);
    if (v.reject)
        m += "\n  Fix the script and submit it again" +
             (c.allow_override ? ", or add --comment=" + c.override_token + " to submit it as it is." : std::string("."));
    v.message = std::move(m);
    return v;
}

}  // namespace jfp
