#include "model/store/job_lookup.h"

#include "model/store/job_cursor.h"
#include "model/store/store_schema.h"

namespace jfp {

namespace {
std::vector<JobRecord> read_all(JobCursor &c) {
    std::vector<JobRecord> out;
    JobRecord j;
    while (c.next(j)) out.push_back(j);
    return out;
}
}  // namespace

std::vector<JobRecord> jobs_with_id(const Db &db, bool script_fp, const std::string &job_id) {
    JobCursor c(db, select_jobs(false, "AND job_id = ?1 ORDER BY submit DESC", "", script_fp), {job_id});
    return read_all(c);
}

std::optional<JobRecord> job_with_token(const Db &db, bool script_fp, const std::string &token) {
    JobCursor c(db, select_jobs(false, "AND jfp_token = ?1 ORDER BY submit DESC LIMIT 1", "", script_fp), {token});
    JobRecord j;
    if (!c.next(j)) return std::nullopt;
    return j;
}

std::vector<JobRecord> tokened_runs(const Db &db, bool script_fp, const std::string &user, const std::string &name,
                                    int64_t before) {
    JobCursor c(db, select_jobs(false, "AND user = ?1 AND name = ?2 AND submit < CAST(?3 AS INTEGER) "
                                       "AND jfp_token IS NOT NULL ORDER BY submit DESC", "", script_fp),
                {user, name, std::to_string(before)});
    return read_all(c);
}

}  // namespace jfp
