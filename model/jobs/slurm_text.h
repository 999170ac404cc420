// Parsers for the text forms Slurm uses for memory, TRES/GRES, job ids and array ranges. Shared by the
// sacct reader and the plugin's job-descriptor adapter so both read a request the same way.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace jfp {

// A size with an optional unit K/M/G/T/P (default M), in MiB: "4000", "4000M", "1.5G", "512K".
std::optional<double> parse_size_mb(std::string_view s);

struct MemRequest {
    enum class Per { Job, Cpu, Node };
    double mb = 0;
    Per per = Per::Job;
    // Total for the job; per-CPU and per-node amounts need the counts (NaN when a count is unknown).
    double total_mb(double cpus, double nodes) const;
};

// sacct ReqMem: pre-21.08 "4000Mc" (per CPU) / "48000Mn" (per node), newer "4000M" (the job's total).
// nullopt for "", "0", "0n" and malformed text: no memory request known.
std::optional<MemRequest> parse_req_mem(std::string_view s);

struct Tres {
    double cpu = std::numeric_limits<double>::quiet_NaN();
    double mem_mb = std::numeric_limits<double>::quiet_NaN();
    double node = std::numeric_limits<double>::quiet_NaN();
    double gpu = std::numeric_limits<double>::quiet_NaN();
};

// "billing=4,cpu=4,gres/gpu=2,mem=16G,node=1" (gres/gpu:a100=2 counts too, typed counts are summed
// only when no untyped count is present).
Tres parse_tres(std::string_view s);

// GPU count in a GRES/TRES request string: "gres:gpu:2" (<= 23.02), "gres/gpu:2" (>= 23.11),
// "gres/gpu:a100:2", "gpu:2", "gres:gpu" (1), lists separated by ',' or ';'. 0 when no gpu is named.
double parse_gpu_request(std::string_view s);

struct JobIdParts {
    std::string_view job;        // without the step: "123", "123_4", "123+1", "123_[1-5]"
    std::string_view step;       // "batch", "extern", "0"...; empty for the job itself
    std::string_view array_job;  // "123" for "123_4"; empty when not an array task
    std::string_view het_leader;  // "123" for "123+1"; empty when not a het component
};

// "123", "123.batch", "123_4", "123_4.0", "123+1.extern", "123_[1-5%2]". nullopt if it does not start
// with a number.
std::optional<JobIdParts> parse_job_id(std::string_view s);

// Slurm's largest MaxArraySize, and its default.
inline constexpr int64_t kSlurmMaxArraySize = 4000001, kSlurmDefaultMaxArraySize = 1001;

// The tasks of an --array index expression, counted as slurmctld counts them (job_mgr.c, the same in 22.05,
// 24.11 and 26.05): the list split at commas with empty items skipped, each item read as strtol reads it
// (blanks before a number allowed), an optional '[' before and ']' after a number, "A-B:S", and anything
// after a '%' ignored; each index a bit of a MaxArraySize bitmap, so a repeated index counts once.
// "1-3" 3, "0-99%10" 100, "1,3,5-7" 5, "1-10:2" 5, "0-999," 1000, "1,1,1" 1. nullopt: slurmctld would
// refuse it (an index at or past max_array_size, a negative one, a stray character), or the distinct count
// of overlapping stepped ranges would take more than kArrayCountWork steps to know: unknown, never 1.
inline constexpr size_t kArrayCountWork = 4096;
std::optional<double> array_task_count(std::string_view s, int64_t max_array_size = kSlurmMaxArraySize);

struct ExitCode {
    int code = 0;
    int signal = 0;
};
std::optional<ExitCode> parse_exit_code(std::string_view s);

}  // namespace jfp
