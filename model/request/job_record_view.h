// A job as slurmctld holds it when an update reaches job_modify, read from slurmctld's own record by the
// plugin (plugin/job_record_layout.h): an update is judged as the job will be after it, from state no user
// can evict and no restart or takeover loses. No Slurm type here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/request/submit_request.h"
#include "model/scoring/features.h"

namespace jfp {

struct JobRecordView {
    // false: jfp cannot read this Slurm's record (a release it has no layout for, or a check failed); the
    // update is then judged from what it says alone, as a fresh submission, and no file of jfp's is touched.
    bool readable = false;
    uint32_t job_id = 0;  // the record's own id (a split array task's, not the array's)
    uint32_t owner_uid = 0;
    SubmitRequest job;  // the job as a request (views into slurmctld's record); uid = owner_uid
    std::string_view admin_comment;
};

// The job after the update: each field the update gives (a string given, even empty; a number known)
// replaces the job's.
SubmitRequest merge_update(const SubmitRequest &job, const SubmitRequest &delta);

// The user's own comment: slurmctld's copy with jfp's annotation (the text from the last "jfp:p=", which
// only the plugin can write) taken off.
std::string_view user_part_of_comment(std::string_view comment);

// The script's findings as the model reads them (JobRequest::script_ignored_sbatch, script_missing_modules):
// NaN where they were not looked for.
struct FindingCounts {
    double ignored_sbatch = kUnknown;
    double missing_modules = kUnknown;
};

// What an update cannot change and the record does not hold in a form jfp reads: the array's size, the
// script's traits as scanned at submission and its findings. jfp writes them into AdminComment beside the
// token ("jfp:s=<array size>.<11 script features>.<2 findings>", empty where unknown; jobs submitted before
// the findings carry 12 fields), which only admins and plugins can write and slurmctld keeps across
// restarts and takeovers.
inline constexpr int kScriptFeatureCount = F_script_set_e - F_script_bytes + 1;
struct SubmissionFacts {
    double array_size = 1;
    bool script_known = false;  // the script was scanned at submission
    std::array<float, kScriptFeatureCount> script{};
    FindingCounts findings;
};
// Appends " jfp:s=..." to admin when there is something to keep (an array, a scanned script, or a finding
// counted: every batch job).
void append_submission_facts(std::string &admin, double array_size, const FeatureVector &x);
// Facts found in an AdminComment; nullopt when it has none or they do not parse.
std::optional<SubmissionFacts> parse_submission_facts(std::string_view admin_comment);

}  // namespace jfp
