// Between Slurm's job descriptor and jfp's core: the only place that reads job_desc_msg_t fields or
// writes Slurm-allocated strings.
#pragma once

#include <slurm/slurm.h>

#include <string>

#include "model/engine.h"

namespace jfp_plugin {

// Views into job_desc: valid while job_desc is.
jfp::SubmitRequest to_submit_request(const job_desc_msg_t *job_desc, uint32_t submit_uid);

// Applies an outcome: comment, admin_comment, and the user message appended to *err_msg (when err_msg is
// given). All strings handed to Slurm come from slurm_xstrdup. Returns the rc for slurmctld.
int apply_outcome(job_desc_msg_t *job_desc, const jfp::SubmitOutcome &outcome, char **err_msg);

}  // namespace jfp_plugin
