// Where `jfp scripts` reads: the script archive, the history store (job ids and outcomes) and the module
// index, as given on the command line or else as jfp.conf names them (script_archive, store, modules_index).
#pragma once

#include <memory>
#include <string>

#include "model/store/history_store.h"

namespace jfp {

struct ArchivePaths {
    std::string archive, db, modules_index;
};

// Fills what is empty from the jfp.conf at conf. The archive is required (throws saying how to name one);
// the store is taken only when readable, the index as the file names it.
void fill_archive_paths(ArchivePaths &p, const std::string &conf);

// True when conf reads and sets no script_archive: the plugin keeps no scripts.
bool conf_keeps_no_scripts(const std::string &conf);

// The store at p.db, read-only; null when none is named, unless required (then throws naming why it is).
std::unique_ptr<HistoryStore> open_history_store(const ArchivePaths &p, bool required, const char *why);

}  // namespace jfp
