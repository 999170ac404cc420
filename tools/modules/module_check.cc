#include "tools/modules/module_check.h"

#include "model/policy/script_findings.h"
#include "model/script/module_lines.h"
#include "model/util/text.h"
#include "tools/modules/module_index_file.h"

namespace jfp {

ScriptModuleReport check_script_modules(const std::string &path, const ModuleIndex &index) {
    const std::string text = read_file_capped(path, size_t{4} << 20, "the script");
    ScriptModuleReport r;
    r.path = path;
    ModuleScan scan = find_module_loads(text);
    for (const auto &f : missing_modules(scan, index, &r.not_told)) r.missing.push_back(missing_module_sentence(f));
    r.loads = scan.loads.size();
    r.complete = scan.complete;
    return r;
}

size_t check_scripts_modules(const std::string &index_path, const std::vector<std::string> &scripts,
                             const std::function<void(const ScriptModuleReport &)> &each) {
    const ModuleIndex index = read_module_index(index_path);
    size_t with_findings = 0;
    for (const auto &path : scripts) {
        ScriptModuleReport r = check_script_modules(path, index);
        with_findings += !r.missing.empty();
        each(r);
    }
    return with_findings;
}

std::string module_report_text(const ScriptModuleReport &r, bool quiet) {
    const std::string shown = printable(r.path);
    std::string out;
    for (const auto &m : r.missing) out += shown + ": " + printable(m, 2000) + "\n";
    if (quiet) return out;
    for (const auto &n : r.not_told) out += shown + ": not judged: " + printable(n, 2000) + "\n";
    if (r.missing.empty())
        out += shown + ": " + std::to_string(r.loads) + " module load" + (r.loads == 1 ? "" : "s") + ", none missing" +
               (r.complete ? "" : " (the scan stopped early: a long script)") + "\n";
    return out;
}

}  // namespace jfp
