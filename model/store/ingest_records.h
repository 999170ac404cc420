// The record each ingest leaves in the history store (the ingests table and its bad lines), and what it
// says afterwards: which store this is, for a snapshot of it, and what an ingest could not read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/files/sqlite_util.h"
#include "model/sacct/sacct_reader.h"

namespace jfp {

// Starts an ingest's record (its time, its source, a random nonce) and returns its number.
int64_t start_ingest_record(const Db &db, const std::string &source);
// Completes it with the reader's counts and keeps every bad line it reported.
void finish_ingest_record(const Db &db, int64_t ingest_id, const SacctReadReport &report);
// The bad lines recorded by one ingest (all of them, not only those printed).
std::vector<BadLine> ingest_bad_lines(const Db &db, int64_t ingest_id);

// An ingest record as a mark, "id|started|nonce|source": the oldest kept (the store's lineage), the newest,
// and whether the record numbered as in `mark` is still there unchanged. A store restored from a backup
// numbers its next ingests again from the backup's: the record a snapshot saw is then gone or different.
// Empty when the store was never ingested into.
std::string oldest_ingest_mark(const Db &db);
std::string newest_ingest_mark(const Db &db);
bool has_ingest_mark(const Db &db, const std::string &mark);

}  // namespace jfp
