#include "model/runtime/script_evidence.h"

#include "model/script/module_lines.h"
#include "model/script/script_mentions.h"
#include "model/util/log.h"
#include "model/util/text.h"

namespace jfp {

// A script without an ignored #SBATCH line costs a scan that stops at its first command and finds no
// "#SBATCH" after it.
ScriptEvidence find_script_evidence(const Config &config, const ModuleIndex *modules, const SubmitRequest &req) {
    ScriptEvidence ev;
    if (!req.has_script) return ev;
    // One pass over the script's bytes tells both line scans whether they have anything to read; the
    // module words only when the module check runs (the scan is what `off` saves).
    const bool module_check = modules && config.missing_modules != FindingAction::Off;
    const ScriptMentions said = find_script_mentions(req.script, module_check);
    // Counted even when jfp.conf turns the finding off: the model's feature must not depend on the setting.
    DirectiveScan directives = find_ignored_directives(req.script, said);
    ev.counts.ignored_sbatch = count_ignored_directives(directives);
    if (config.ignored_directives != FindingAction::Off) ev.directives = std::move(directives);
    // Only with an index, and not when turned off (the scan is what `off` saves).
    if (module_check) {
        ModuleScan scan = find_module_loads(req.script, said);
        if (!scan.loads.empty()) ev.modules = missing_modules(scan, *modules, &ev.not_told);
        ev.counts.missing_modules = static_cast<double>(ev.modules.size());
    }
    return ev;
}

std::string ScriptEvidence::annotation_field() const {
    if (directives.ignored.empty() && modules.empty()) return {};
    std::string f = ",script=";
    if (!directives.ignored.empty()) f += "ignored_sbatch";
    if (!modules.empty()) f += directives.ignored.empty() ? "missing_module" : "+missing_module";
    return f;
}

namespace {

const char *said(const ScriptFindingsVerdict &v, const char *setting) {
    return v.reject ? setting : v.message.empty() ? ": not said (mode)" : ": warned";
}

void add_verdict(const ScriptFindingsVerdict &v, std::string &message, bool &reject, EvidenceJudged &out) {
    if (!v.message.empty()) message += (message.empty() ? "" : "\n") + v.message;
    if (v.reject && !reject) out.rejected = true;
    reject = reject || v.reject;
}

}  // namespace

EvidenceJudged judge_script_evidence(const Config &config, const SubmitRequest &req, const JobRequest &r,
                                     std::string_view comment, bool privileged, const ScriptEvidence &ev,
                                     std::string &message, bool &reject) {
    EvidenceJudged out;
    const std::string who = "uid " + std::to_string(req.uid) + " name=" + quote_log_field(r.name);
    if (!ev.directives.ignored.empty()) {
        out.ignored_directives = true;
        ScriptFindingsVerdict v = judge_script_findings(config, r, ev.directives, comment, privileged);
        add_verdict(v, message, reject, out);
        std::string lines;
        for (const auto &d : ev.directives.ignored) lines += (lines.empty() ? "" : ",") + std::to_string(d.line);
        log_msg(v.reject ? LogLevel::Info : LogLevel::Debug,
                who + ": sbatch ignored #SBATCH line(s) " + lines + said(v, ": rejected (ignored_directives = reject)"));
    }
    // What the index cannot judge is logged at debug level only.
    if (!ev.not_told.empty() && debug_enabled()) {
        std::string why;
        for (const auto &n : ev.not_told) why += (why.empty() ? "" : "; ") + n;
        log_msg(LogLevel::Debug, who + ": module loads not judged: " + quote_log_field(why, 600));
    }
    if (!ev.modules.empty()) {
        out.missing_modules = true;
        ScriptFindingsVerdict v = judge_module_findings(config, r, ev.modules, comment, privileged);
        add_verdict(v, message, reject, out);
        if (v.reject || debug_enabled()) {
            std::string names;
            for (const auto &f : ev.modules) names += (names.empty() ? "" : ",") + f.load.name;
            log_msg(v.reject ? LogLevel::Info : LogLevel::Debug,
                    who + ": modules not on this cluster: " + quote_log_field(names, 200) +
                        said(v, ": rejected (missing_modules = reject)"));
        }
    }
    return out;
}

}  // namespace jfp
