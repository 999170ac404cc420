// libFuzzer: every parser of Slurm's text (memory, TRES, GPUs, job ids, array specs, exit codes, times,
// durations, time limits) on the same input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/jobs/slurm_text.h"
#include "model/util/time_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    std::string_view s(reinterpret_cast<const char *>(data), size);
    (void)jfp::parse_size_mb(s);
    (void)jfp::parse_req_mem(s);
    (void)jfp::parse_tres(s);
    (void)jfp::parse_gpu_request(s);
    (void)jfp::parse_job_id(s);
    (void)jfp::array_task_count(s);
    (void)jfp::parse_exit_code(s);
    if (auto t = jfp::parse_sacct_time(s)) (void)jfp::format_sacct_time(*t);
    (void)jfp::parse_duration_seconds(s);
    (void)jfp::parse_timelimit_minutes(s);
    (void)jfp::parse_slurm_time_minutes(s);
    return 0;
}
