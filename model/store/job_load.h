// The snapshot's full load (HistoryStore::load_jobs): every job row's submission, and the ended jobs in
// replay order (end_order_replay.h), on one thread or two. With two, the submissions are read on a second
// read-only connection at the same time, when it sees the same store: the same highest change number and
// prune count (every write to a job row takes a new change number; a deletion is a prune), else on the
// caller's connection after the ended jobs.
#pragma once

#include <cstddef>
#include <functional>

#include "model/files/sqlite_util.h"
#include "model/store/history_store.h"

namespace jfp {

struct JobLoad {
    const Db &db;
    bool keyed = true;      // schema 2: end_seq orders the ended rows (schema 1: SQLite sorts them)
    bool script_fp = true;  // the store has the script_fp column
    HistoryStore::LoadOptions options;
};
void load_jobs(const JobLoad &load, const std::function<void(const HistoryStore::Submission &)> &submission,
               const std::function<void(const JobRecord &)> &ended);

}  // namespace jfp
