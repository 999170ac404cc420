// sacct rows become jobs: each step row folds into its job (peak memory, out-of-memory, batch step), which
// sacct prints just before it, so the job is held until the next job row and then handed on.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "model/sacct/sacct_row.h"
#include "model/sacct/job_user_text.h"
#include "model/jobs/job_record.h"

namespace jfp {

class JobFolder {
public:
    using JobSink = std::function<void(JobRecord &&)>;
    using StepSink = std::function<void(StepInfo &&)>;
    JobFolder(JobSink on_job, StepSink on_step) : on_job_(std::move(on_job)), on_step_(std::move(on_step)) {}

    // A new stream: jobs may end up to an hour after now (clocks that disagree a little), no later.
    void start(int64_t now_naive_local) { latest_plausible_end_ = now_naive_local + 3600; }
    // A job or step row. user_text: each job's name and submit line from sacct --json, for an export without
    // JobName; else null. Returns why a job row is not stored (said for a person), or nothing.
    std::optional<std::string> add(SacctRow &&row, const JobUserTextById *user_text);
    // Hands on the job held.
    void flush();

    uint64_t job_rows() const { return job_rows_; }
    uint64_t step_rows() const { return step_rows_; }

private:
    JobSink on_job_;
    StepSink on_step_;
    std::optional<JobRecord> held_;
    int64_t latest_plausible_end_ = 0;
    uint64_t job_rows_ = 0, step_rows_ = 0;
};

}  // namespace jfp
