// Between Slurm's job descriptor and jfp's core: the only place that reads job_desc_msg_t fields or
// writes Slurm-allocated strings.
#pragma once

#include <slurm/slurm.h>

#include <string>
#include <string_view>

struct job_record;  // slurmctld's, opaque here

#include "model/runtime/engine.h"

namespace jfp_plugin {

// A string of the job descriptor (from Slurm's allocator, as every job_desc string must be) as a view,
// its length read from the allocator's block when the block holds exactly the string.
std::string_view slurm_string(const char *s);

// Views into job_desc: valid while job_desc is.
jfp::SubmitRequest to_submit_request(const job_desc_msg_t *job_desc, uint32_t submit_uid);

// The job an update names: job_id_str when given, else the numeric id (26.05 moved it into step_id).
// Empty when the descriptor names no job.
std::string job_id_of(const job_desc_msg_t *job_desc);

// What slurmctld holds for the job an update reaches (plugin/job_record_layout.h): the record slurmctld hands
// job_modify, whatever id the user typed. Read only after the job's magic cookie, its details' magic cookie
// and a plausible job id and owner check out. Not readable (view.readable false) on a release jfp has no
// layout for, or when a check fails.
jfp::JobRecordView read_job_record(const job_record *job_ptr);
// Whether this build knows slurmctld's record layout, and for which releases (the load line says it).
const char *job_record_layout_releases();

// Applies an outcome: comment, admin_comment, and the user message appended to *err_msg (when err_msg is
// given). All strings handed to Slurm come from slurm_xstrdup. Returns the rc for slurmctld.
int apply_outcome(job_desc_msg_t *job_desc, const jfp::SubmitOutcome &outcome, char **err_msg);

}  // namespace jfp_plugin
