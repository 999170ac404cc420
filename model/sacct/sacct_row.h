// What one sacct row says once its fields are placed: a job, or a step of one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/sacct/sacct_layout.h"
#include "model/jobs/job_record.h"

namespace jfp {

struct SacctRow {
    enum class Kind { Job, Step, Bad };
    Kind kind = Kind::Bad;
    JobRecord job;          // Kind::Job
    StepInfo step;          // Kind::Step
    bool batch_step = false;  // Kind::Step: the batch script's own step (so the job was not interactive)
    std::string problem;    // Kind::Bad: what is wrong, said for a person
};

// What a submit line says: kept, and whether the job was interactive (srun, salloc) or had a dependency.
void apply_submit_line(JobRecord &job, std::string_view submit_line);

// Reads a row of layout.width() fields that passed layout.validate(). `default_cluster` is used when
// the export has no Cluster column (or the field is empty).
SacctRow read_sacct_row(const SacctLayout &layout, const std::vector<std::string_view> &fields,
                        const std::string &default_cluster);

}  // namespace jfp
