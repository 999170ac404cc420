// `jfp modules check`: what the plugin would say about batch scripts' module loads, read as the plugin
// reads them (the first 16 KiB) against the site's module index.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "model/script/module_index.h"

namespace jfp {

struct ScriptModuleReport {
    std::string path;
    std::vector<std::string> missing;   // the sentences the plugin would tell its user
    std::vector<std::string> not_told;  // loads not judged, with why
    size_t loads = 0;
    bool complete = true;  // false: the scan stopped early (a long script)
};

// One script file (at most 4 MiB, Slurm's default max_script_size); throws when it cannot be read.
ScriptModuleReport check_script_modules(const std::string &path, const ModuleIndex &index);

// Every script against the index at index_path, each report handed to each() as it is made (a script that
// cannot be read stops the run after the ones before it were reported). Returns how many had a finding.
size_t check_scripts_modules(const std::string &index_path, const std::vector<std::string> &scripts,
                             const std::function<void(const ScriptModuleReport &)> &each);

// The lines `jfp modules check` prints for a report; quiet: the missing modules only.
std::string module_report_text(const ScriptModuleReport &r, bool quiet);

}  // namespace jfp
