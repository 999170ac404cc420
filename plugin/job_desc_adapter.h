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

// Why slurmctld will refuse this job itself after job_submit (its own length limits on name and comment,
// max_script_size, MaxArraySize), or null. Such a job gets no job id: jfp neither scores, logs nor
// archives it (a user could otherwise fill the archive with scripts no job ever ran).
const char *slurm_refusal(const job_desc_msg_t *job_desc, std::string_view script);

// The job an update names: job_id_str when given, else the numeric id (26.05 moved it into step_id).
// Empty when the descriptor names no job.
std::string job_id_of(const job_desc_msg_t *job_desc);

// The head of slurmctld's job_record, which no installed header declares ("DO NOT ALPHABETIZE" in
// Slurm's job_record.h). Offsets read from each release's own job_submit_lua.so (objdump of
// slurm_lua_job_record_field) and from the record itself: 22.05 and 24.11 start with the magic cookie,
// then account (0x08) and admin_comment (0x10); 26.05 puts the job's slurm_step_id_t first, so the
// magic is at 0x18, account at 0x20, admin_comment at 0x28.
struct JobRecordHead {
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
    slurm_step_id_t step_id;
#endif
    uint32_t magic;
    char *account;
    char *admin_comment;
};
constexpr uint32_t kJobMagic = 0xf0b7392c;  // JOB_MAGIC in Slurm's job_record.h (slurmctld.h before 23.02)

// The AdminComment of the job job_modify is given, where jfp wrote the job's token at submission. The
// magic cookie (and on 26.05 the job id, when the update names one) is checked before the pointer is
// read: another layout gives false, never a wild read.
bool admin_comment_of(const job_record *job_ptr, const std::string &job_id, std::string &out);

// Applies an outcome: comment, admin_comment, and the user message appended to *err_msg (when err_msg is
// given). All strings handed to Slurm come from slurm_xstrdup. Returns the rc for slurmctld.
int apply_outcome(job_desc_msg_t *job_desc, const jfp::SubmitOutcome &outcome, char **err_msg);

}  // namespace jfp_plugin
