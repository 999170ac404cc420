#include "tools/scripts/archive_paths.h"

#include <unistd.h>

#include <stdexcept>

#include "model/policy/config.h"

namespace jfp {

void fill_archive_paths(ArchivePaths &p, const std::string &conf) {
    if (!p.archive.empty() && !p.db.empty() && !p.modules_index.empty()) return;
    ConfigParseResult r = load_config_file(conf);
    if (!r.ok()) {
        if (p.archive.empty())
            throw std::runtime_error("no --archive given, and " + r.error_text() +
                                     "; give --archive PATH (script_archive in jfp.conf) or --conf FILE");
        return;  // the store is optional
    }
    if (p.archive.empty()) {
        if (r.config.script_archive_path.empty())
            throw std::runtime_error(conf + " sets no script_archive: the plugin keeps no scripts (see jfp.conf(5)); "
                                            "set it, or give --archive PATH");
        p.archive = r.config.script_archive_path;
    }
    if (p.db.empty() && ::access(r.config.store_path.c_str(), R_OK) == 0) p.db = r.config.store_path;
    if (p.modules_index.empty()) p.modules_index = r.config.modules_index;
}

bool conf_keeps_no_scripts(const std::string &conf) {
    ConfigParseResult r = load_config_file(conf);
    return r.ok() && r.config.script_archive_path.empty();
}

std::unique_ptr<HistoryStore> open_history_store(const ArchivePaths &p, bool required, const char *why) {
    if (p.db.empty()) {
        if (required) throw std::runtime_error(std::string(why) + " needs the history store: give --db (store in jfp.conf)");
        return nullptr;
    }
    return std::make_unique<HistoryStore>(p.db, HistoryStore::Access::ReadOnly);
}

}  // namespace jfp
