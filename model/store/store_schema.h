// The history store's schema: its tables, the job columns every reader and writer agree on, the
// statements built from them, and the open that brings an older store up to this version. Only the
// store's own rooms (model/store/) use it.
#pragma once

#include <cstdint>
#include <string>

#include "model/files/sqlite_util.h"
#include "model/jobs/outcome.h"

namespace jfp {

extern const char *const kHistorySchema;
// Job columns in the order put_job binds them and JobCursor reads them (JobCursor reads by position).
extern const char *const kJobColumns;
// The same with NULL for script_fp: a store from before fingerprints, opened read-only.
extern const char *const kJobColumnsWithoutScriptFp;
constexpr int kUnfinishedOutcome = static_cast<int>(Outcome::Unfinished);

// A job row that ended: it has an end time and a final state (what history is built from); and its
// negation, a job still queued or running or never reported ended. One definition for every query.
std::string ended_sql();
std::string not_ended_sql();

// Inserts a job row, or updates it only when something changed (a change gets the next change number)
// and never with an unfinished state over a final one.
std::string job_upsert_sql();
// kJobColumns (and extra_columns) of job rows, not step stubs; ended_only: with an end and a verdict.
// `order` follows the WHERE clause: more conditions ("AND ...") and ORDER BY.
// script_fp false: the store has no script_fp column (NULL read in its place).
std::string select_jobs(bool ended_only, const char *order, const char *extra_columns = "", bool script_fp = true);

constexpr int kStoreSchemaVersion = 2;

// A store as opened, and what its version lets a reader ask of it.
struct OpenedStore {
    Db db;
    bool tracks_changes = true;  // false: a schema-1 store opened read-only (nothing numbers its changes)
    bool has_script_fp = true;   // false: a store from before fingerprints, opened read-only
};
// writable creates the file and schema when missing and brings an older store up to date. Throws SqliteError
// with the path and what to do when the file is not a jfp store or was written by a newer jfp.
OpenedStore open_store_db(const std::string &path, bool writable);

// Whether the store has been pruned at least once (the prunes table exists).
bool has_prunes_table(const Db &db);
// The next change number for a job row. Change numbers never go back: above every row's, and above the
// highest a prune removed.
int64_t next_change_seq(const Db &db);
int64_t highest_pruned_seq(const Db &db);

}  // namespace jfp
