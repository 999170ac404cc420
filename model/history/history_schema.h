// The history store's SQL: its tables, the job columns every reader and writer agree on, and the
// statements built from them. Only history_store.cc and job_cursor.cc use it.
#pragma once

#include <string>

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

}  // namespace jfp
