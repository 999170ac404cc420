// What a `jfp prune` is asked (the files, the age, whether to apply), and how it says that a file is
// missing or that another writer held it too long.
#pragma once

#include <cstdint>
#include <string>

#include "model/files/sqlite_util.h"

namespace jfp {

// History features read a user's past runs (recent runs of a name, failure rates, hours since the last
// failure): a store cut to a few days would silently blind them. The feature log holds the vectors of jobs
// still queued or running and what jfp monitor (7 days) and jfp train --feature-log read. Shorter needs --force.
constexpr int64_t kMinRetentionDays = 30;

struct PruneRequest {
    std::string db, feature_log, archive;  // the files; an empty one is not pruned (orphans)
    int64_t age = 0;                       // seconds: --older-than, or --grace for orphans
    std::string age_text;                  // as given, for messages
    bool dry_run = false, vacuum = false, force = false;
};

// Throws "no WHAT at PATH: nothing to prune (check OPTION, ...)" when path does not exist.
void require_prune_file(const std::string &path, const char *what, const char *option);

// Another writer held the file past SQLite's 5 s wait (BUSY) or holds a lock in this process's way
// (LOCKED): throws what happened, what state it left (state) and what to do. Called from the catch block
// of e: any other error is rethrown as it is.
[[noreturn]] void throw_prune_busy(const SqliteError &e, const std::string &path, const char *who, const std::string &state);

}  // namespace jfp
