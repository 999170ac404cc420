#include "model/store/index_fields.h"

namespace jfp {

void read_index_fields(const Stmt &s, const IndexColumns &c, JobRecord &j) {
    j.array_job = s.view_at(c.array_job);
    j.user = s.view_at(c.user);
    j.account = s.view_at(c.account);
    j.partition = s.view_at(c.partition);
    j.name = s.view_at(c.name);
    j.end = s.int_at(c.end);
    j.outcome = static_cast<Outcome>(s.int_at(c.outcome));
    j.exit_signal = static_cast<int>(s.int_at(c.exit_signal));
    j.req_cpus = s.real_at(c.req_cpus);
    j.req_mem_mb = s.real_at(c.req_mem_mb);
    j.timelimit_min = s.real_at(c.timelimit_min);
    j.elapsed_s = s.real_at(c.elapsed_s);
    j.max_rss_mb = s.real_at(c.max_rss_mb);
    // Releases that mark only the step OUT_OF_MEMORY leave the job FAILED: the step's verdict wins.
    if (s.int_at(c.step_oom) != 0 && j.outcome == Outcome::Failed) j.outcome = Outcome::OutOfMemory;
    j.script_fingerprint = s.is_null(c.script_fp) ? 0 : static_cast<uint64_t>(s.int_at(c.script_fp));
    infer_memory_kill(j);
}

}  // namespace jfp
