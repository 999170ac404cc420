#include "model/jobs/job_record.h"

#include <cctype>

namespace jfp {

std::string extract_jfp_token(const std::string &admin_comment) {
    auto pos = admin_comment.find("jfp:t=");
    if (pos == std::string::npos) return {};
    pos += 6;
    size_t end = pos;
    while (end < admin_comment.size() && std::isxdigit(static_cast<unsigned char>(admin_comment[end]))) ++end;
    return admin_comment.substr(pos, end - pos);
}

void infer_memory_kill(JobRecord &j) {
    if (j.outcome == Outcome::Failed && j.exit_signal == 9 && known(j.max_rss_mb) && known(j.req_mem_mb) &&
        j.req_mem_mb > 0 && j.max_rss_mb >= 0.9 * j.req_mem_mb)
        j.outcome = Outcome::OutOfMemory;
}

}  // namespace jfp
