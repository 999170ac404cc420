// Slurm's own structured output (sacct --json, squeue --json; Slurm 22.05 and later). Its text output
// prints what users write (job names, submit lines) raw, so a name holding a newline and a whole record
// reads as one more job; in JSON every string is quoted and a name stays a name. Read as a stream (SAX):
// memory grows with the jobs kept, not with the document (steps, TRES lists).
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/sacct/job_user_text.h"

namespace jfp {

struct SlurmJsonError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One element of the top-level "jobs" array: its scalar members by key, as text. A member that is an
// object with "number" (Slurm 23.02+ writes {"set": true, "infinite": false, "number": 5}) counts as that
// number, or as absent when "set" is false; null counts as absent.
using SlurmJsonJob = std::map<std::string, std::string>;

// Calls on_job for each job with the members named in keys. Throws SlurmJsonError naming the source and
// the offset when the text is not JSON or has no "jobs" array.
void read_slurm_json_jobs(std::FILE *in, const std::string &source, const std::vector<std::string> &keys,
                          const std::function<void(SlurmJsonJob &&)> &on_job);
void read_slurm_json_jobs_text(const std::string &text, const std::string &source, const std::vector<std::string> &keys,
                               const std::function<void(SlurmJsonJob &&)> &on_job);

// What a job's user wrote, by JobIDRaw, from sacct --json.
JobUserTextById read_sacct_json_user_text(std::FILE *in, const std::string &source);
JobUserTextById sacct_json_user_text(const std::string &text, const std::string &source);

// Job id -> the jfp token in its AdminComment (users cannot set AdminComment), from squeue --json; a
// running array task also as "ARRAYJOB_TASK". Jobs without a token are left out.
std::vector<std::pair<std::string, std::string>> squeue_json_tokens(std::FILE *in, const std::string &source);
std::vector<std::pair<std::string, std::string>> squeue_json_tokens_text(const std::string &text, const std::string &source);

}  // namespace jfp
