// The columns of a job row that HistoryIndex::add reads, read into a JobRecord with what JobCursor makes of
// them (a step's OOM verdict, a kill inferred from memory): shared by JobCursor (kJobColumns' positions)
// and the snapshot's load, which selects only these (end_order_replay.h).
#pragma once

#include "model/files/sqlite_util.h"
#include "model/jobs/job_record.h"

namespace jfp {

// Each field's column in the statement.
struct IndexColumns {
    int array_job, user, account, partition, name, end, outcome, exit_signal, req_cpus, req_mem_mb, timelimit_min,
        elapsed_s, max_rss_mb, step_oom, script_fp;
};
// In kJobColumns (store_schema.h).
constexpr IndexColumns kJobColumnsIndex{3, 4, 5, 6, 8, 11, 12, 15, 16, 18, 19, 21, 22, 27, 29};
// These columns alone, in this order.
constexpr IndexColumns kIndexOnly{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
constexpr const char *kIndexOnlyColumns = "array_job, user, account, partition, name, end_time, outcome, exit_signal, "
                                          "req_cpus, req_mem_mb, timelimit_min, elapsed_s, max_rss_mb, step_oom";

// Sets only these fields (and the outcome from them); the caller's others stay as they were.
void read_index_fields(const Stmt &s, const IndexColumns &c, JobRecord &j);

}  // namespace jfp
