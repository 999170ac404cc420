// One job as accounting knows it after the fact: the request plus how it ended. Built by the sacct
// reader, kept in the history store, read back by the trainer.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "model/jobs/job_request.h"
#include "model/jobs/outcome.h"

namespace jfp {

struct JobRecord {
    std::string cluster;
    std::string job_key;    // JobIDRaw (JobID when the export has no JobIDRaw): unique per cluster
    std::string job_id;     // JobID as shown: "123_4", "123+1"
    std::string array_job;  // "123" for array tasks, else empty
    std::string user, account, partition, qos, name;
    int64_t uid = -1;  // numeric user id when the export has UID; -1 unknown

    int64_t submit = 0;
    int64_t start = 0;  // 0 when unknown
    int64_t end = 0;    // 0 when unknown (or not ended)
    Outcome outcome = Outcome::Unfinished;
    std::string state;  // first word of sacct's State
    int exit_code = 0;
    int exit_signal = 0;

    double req_cpus = kUnknown;
    double req_nodes = kUnknown;
    double req_mem_mb = kUnknown;
    double timelimit_min = kUnknown;
    double req_gpus = kUnknown;
    double elapsed_s = kUnknown;
    double max_rss_mb = kUnknown;  // largest MaxRSS over the job's steps
    double has_dependency = kUnknown;
    double interactive = kUnknown;
    double array_size = 1;

    std::string submit_line;
    std::string jfp_token;  // the plugin's join token, from AdminComment
    // The fingerprint of the script the plugin logged for that token (feature log), joined at ingest; 0 none.
    uint64_t script_fingerprint = 0;

    bool ended() const { return has_ended(outcome) && end > 0; }
};

// Step rows (123.batch, 123.0) carry what the job row lacks: memory high-water marks, and in some
// releases the OUT_OF_MEMORY verdict while the job row says FAILED.
struct StepInfo {
    std::string cluster;
    std::string job_key;  // of the job the step belongs to
    double max_rss_mb = kUnknown;
    bool out_of_memory = false;
};

// Slurm's OverMemoryKill (jobacct_gather) kills a job over its memory request with SIGKILL and
// accounting says FAILED, ExitCode 0:9, not OUT_OF_MEMORY (that needs cgroup's OOM notification).
// A FAILED job killed by signal 9 whose steps peaked at >= 90% of the request is read as OUT_OF_MEMORY.
void infer_memory_kill(JobRecord &job);

// The token the plugin writes into AdminComment ("jfp:t=<hex>"); empty when absent.
std::string extract_jfp_token(const std::string &admin_comment);

}  // namespace jfp
