// The ended jobs in replay order (end_time, then end_seq) without SQLite sorting every row: the order is
// worked out from each ended row's two keys (16 bytes a job, read in the scan of submissions), then the
// rows are read in rowid order and put back in order through a ring of slots. The ring is as wide as the
// rows stand out of order (a job first ingested while still running waits in it until the jobs that ended
// before it are out): a few thousand slots for an export in job id order. ORDER BY end_time, end_seq made
// SQLite sort whole rows (temp B-tree, spilled to files): half of a fresh snapshot's time
// (docs/performance.md §3).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "model/files/sqlite_util.h"
#include "model/jobs/job_record.h"

namespace jfp {

// An ended row's place in replay order. end_seq is unique among ended rows of a schema-2 store (each
// write has its own change number), so the order is total: the same as ORDER BY end_time, end_seq.
struct EndKey {
    int64_t end = 0, seq = 0;
    uint32_t row = 0;  // set by replay_order: the row's number in rowid order
};

struct ReplayOrder {
    std::vector<uint32_t> rank;  // for each ended row in rowid order: its place in replay order
    size_t window = 0;           // ring slots needed: the widest span of places read and not yet replayed
};
// keys: the ended rows' keys in rowid order, sorted in place and released (24 bytes a job at the peak, then 4).
// Ties (none in a schema-2 store) keep rowid order.
ReplayOrder replay_order(std::vector<EndKey> keys);

// Reads the ended job rows in rowid order (the rows `order` was made from: call both inside one read
// transaction) and calls fn for each in replay order, with the fields HistoryIndex::add reads (as
// HistoryStore::ended_jobs_for_index: the others empty). Throws std::runtime_error when the rows differ
// from the order's.
void replay_ended_rows(const Db &db, bool script_fp, const ReplayOrder &order,
                       const std::function<void(const JobRecord &)> &fn);

}  // namespace jfp
