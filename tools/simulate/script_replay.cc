#include "tools/simulate/script_replay.h"

#include <stdexcept>

#include "model/policy/script_findings.h"
#include "model/script/script_mentions.h"

namespace jfp {

void replay_script_findings(const ScriptArchive &archive, const ModuleIndex *index, const Config &cfg,
                            std::vector<SimulatedJob> &jobs) {
    for (SimulatedJob &j : jobs) {
        if (j.token.empty()) continue;
        auto sub = archive.by_token(j.token);
        if (!sub) continue;
        std::string script;
        try {
            script = archive.blob(sub->script_hash);
        } catch (const std::runtime_error &) {
            continue;  // a damaged or pruned blob: not archived, as far as this replay can tell
        }
        j.script_archived = true;
        // Comments are not in the store: an override a user wrote is not seen (as for the model's policy).
        // One pass over the bytes for both line scans, as the plugin makes it.
        const ScriptMentions said = find_script_mentions(script, index != nullptr);
        DirectiveScan scan = find_ignored_directives(script, said);
        ScriptFindingsVerdict dv = judge_script_findings(cfg, j.request, scan, "", j.request.privileged);
        j.ignored_sbatch = !scan.ignored.empty();
        std::vector<ModuleFinding> found;
        // Found whatever the setting (as the ignored lines are): missing_modules = off only stops the action.
        if (index) {
            ModuleScan loads = find_module_loads(script, said);
            if (!loads.loads.empty()) found = missing_modules(loads, *index);
        }
        j.missing_module = !found.empty();
        ScriptFindingsVerdict mv;
        if (!found.empty()) mv = judge_module_findings(cfg, j.request, found, "", j.request.privileged);
        if (dv.reject || mv.reject)
            j.script_action = Action::Reject;
        else if (!dv.message.empty() || !mv.message.empty())
            j.script_action = Action::Warn;
    }
}

}  // namespace jfp
