#include "model/store/job_cursor.h"

#include "model/store/store_schema.h"

namespace jfp {

JobCursor::JobCursor(const Db &db, const std::string &sql) : stmt_(new Stmt(db, sql.c_str())) {}
JobCursor::JobCursor(const Db &db, const std::string &sql, const std::vector<std::string> &params)
    : stmt_(new Stmt(db, sql.c_str())) {
    for (size_t i = 0; i < params.size(); ++i) stmt_->bind(static_cast<int>(i) + 1, std::string_view(params[i]));
}

bool JobCursor::next(JobRecord &j, JobSeqs &q) {
    if (!next(j)) return false;
    q.seq = stmt_->int_at(30);
    q.job_seq = stmt_->int_at(31);
    q.end_seq = stmt_->int_at(32);
    return true;
}

bool JobCursor::next(JobRecord &j) {
    Stmt &s = *stmt_;
    if (!s.step()) return false;
    j.cluster = s.view_at(0);
    j.job_key = s.view_at(1);
    j.job_id = s.view_at(2);
    j.array_job = s.view_at(3);
    j.user = s.view_at(4);
    j.account = s.view_at(5);
    j.partition = s.view_at(6);
    j.qos = s.view_at(7);
    j.name = s.view_at(8);
    j.submit = s.int_at(9);
    j.start = s.int_at(10);
    j.end = s.int_at(11);
    j.outcome = static_cast<Outcome>(s.int_at(12));
    j.state = s.view_at(13);
    j.exit_code = static_cast<int>(s.int_at(14));
    j.exit_signal = static_cast<int>(s.int_at(15));
    j.req_cpus = s.real_at(16);
    j.req_nodes = s.real_at(17);
    j.req_mem_mb = s.real_at(18);
    j.timelimit_min = s.real_at(19);
    j.req_gpus = s.real_at(20);
    j.elapsed_s = s.real_at(21);
    j.max_rss_mb = s.real_at(22);
    j.has_dependency = s.real_at(23);
    j.interactive = s.real_at(24);
    j.submit_line = s.view_at(25);
    j.jfp_token = s.view_at(26);
    j.array_size = 1;
    j.uid = s.is_null(28) ? -1 : s.int_at(28);
    j.script_fingerprint = s.is_null(29) ? 0 : static_cast<uint64_t>(s.int_at(29));
    fold_step_verdicts(j, s.int_at(27) != 0);
    return true;
}

void fold_step_verdicts(JobRecord &j, bool step_oom) {
    // Releases that mark only the step OUT_OF_MEMORY leave the job FAILED: the step's verdict wins.
    if (step_oom && j.outcome == Outcome::Failed) j.outcome = Outcome::OutOfMemory;
    infer_memory_kill(j);
}

}  // namespace jfp
