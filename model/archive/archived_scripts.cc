#include "model/archive/archived_scripts.h"

namespace jfp {

ArchivedScripts::ArchivedScripts(const std::string &archive_path)
    : archive_(archive_path, ScriptArchive::Access::ReadOnly) {}

std::optional<ScriptTraits> ArchivedScripts::traits(const std::string &token) {
    auto sub = archive_.by_token(token);
    if (!sub) {
        ++missing_;
        return std::nullopt;
    }
    ++found_;
    auto it = by_hash_.find(sub->script_hash);
    if (it == by_hash_.end()) it = by_hash_.emplace(sub->script_hash, scan_script(archive_.blob(sub->script_hash))).first;
    return it->second;
}

}  // namespace jfp
