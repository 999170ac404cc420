#include "model/archive/archived_scripts.h"

#include "model/script/ignored_directives.h"

namespace jfp {

ArchivedScripts::ArchivedScripts(const std::string &archive_path)
    : archive_(archive_path, ScriptArchive::Access::ReadOnly) {}

std::optional<ArchivedScriptFeatures> ArchivedScripts::features(const std::string &token) {
    auto sub = archive_.by_token(token);
    if (!sub) {
        ++missing_;
        return std::nullopt;
    }
    ++found_;
    auto it = by_hash_.find(sub->script_hash);
    if (it == by_hash_.end()) {
        const std::string script = archive_.blob(sub->script_hash);
        it = by_hash_.emplace(sub->script_hash, ArchivedScriptFeatures{scan_script(script), count_ignored_directives(script)}).first;
    }
    return it->second;
}

}  // namespace jfp
