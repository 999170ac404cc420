// Where slurmctld's job_record and job_details keep the fields an update is judged on. No installed header
// declares either struct ("DO NOT ALPHABETIZE" in Slurm's job_record.h), and their layout changes between
// micro releases (24.11.0 -> 24.11.5 inserted fields before `name`): so each layout is for the exact
// releases it was measured on, by compiling offsetof() against that release's own source tree
// (scripts/job-record-offsets, docs/admin-guide.md "Slurm releases"). A release not listed here has no
// layout: its updates are judged as fresh submissions of what they say, and the plugin says so at load.
//
// The reader checks the job's magic cookie, its job id against the update's and the details' magic cookie
// before it trusts a pointer (job_desc_adapter.cc); test/integration/update_record.sh compares what it
// reads with squeue on every release leg.
#pragma once

#include <slurm/slurm.h>

#include <cstddef>
#include <cstdint>

namespace jfp_plugin {

struct JobRecordLayout {
    const char *measured_on;  // the releases the offsets were measured on
    // job_record
    size_t magic, account, admin_comment, batch_flag, comment, details, job_id, name, partition, qos_ptr,
        time_limit, tres_per_job, tres_per_node, tres_per_socket, tres_per_task, user_id;
    // job_details
    size_t d_magic, d_cpus_per_task, d_dependency, d_min_cpus, d_min_nodes, d_num_tasks, d_pn_min_memory;
};

constexpr uint32_t kJobMagic = 0xf0b7392c;      // JOB_MAGIC
constexpr uint32_t kDetailsMagic = 0x0dea84e7;  // DETAILS_MAGIC

#if SLURM_VERSION_NUMBER == SLURM_VERSION_NUM(22, 5, 8)
constexpr JobRecordLayout kJobRecordLayout{"22.05.8",
                                           0x000, 0x008, 0x010, 0x058, 0x090, 0x0d0, 0x168, 0x1e8, 0x248, 0x2b0,
                                           0x368, 0x390, 0x398, 0x3a0, 0x3a8, 0x3e0,
                                           0x000, 0x058, 0x078, 0x104, 0x114, 0x120, 0x130};
#define JFP_JOB_RECORD_LAYOUT 1
#elif SLURM_VERSION_NUMBER == SLURM_VERSION_NUM(24, 11, 5)
constexpr JobRecordLayout kJobRecordLayout{"24.11.5",
                                           0x000, 0x008, 0x010, 0x058, 0x090, 0x0d8, 0x188, 0x220, 0x290, 0x308,
                                           0x3d8, 0x400, 0x408, 0x410, 0x418, 0x450,
                                           0x000, 0x060, 0x080, 0x10c, 0x11c, 0x128, 0x138};
#define JFP_JOB_RECORD_LAYOUT 1
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0) && SLURM_VERSION_NUMBER <= SLURM_VERSION_NUM(26, 5, 4)
// Measured on 26.05.0 and the 26.05 branch at 26.05.4-pre (job_record.h unchanged between them).
constexpr JobRecordLayout kJobRecordLayout{"26.05.0-26.05.4",
                                           0x018, 0x020, 0x028, 0x078, 0x0b0, 0x100, 0x1c0, 0x268, 0x2f0, 0x370,
                                           0x450, 0x480, 0x488, 0x490, 0x498, 0x4d0,
                                           0x000, 0x060, 0x080, 0x110, 0x120, 0x12c, 0x140};
#define JFP_JOB_RECORD_LAYOUT 1
#elif SLURM_VERSION_NUMBER == SLURM_VERSION_NUM(26, 5, 5)
// 26.05.5 put 8 bytes between batch_host and burst_buffer: everything from comment on moved by 8. Measured
// from Debian's own job_submit_lua.so (scripts/job-record-offsets --lua-plugin, which gives 24.11.5's
// layout exactly), for every field job_submit/lua reads; batch_flag (before the insertion) and job_details
// (unchanged around num_tasks and cpus_per_task) as in 26.05.4.
constexpr JobRecordLayout kJobRecordLayout{"26.05.5",
                                           0x018, 0x020, 0x028, 0x078, 0x0b8, 0x108, 0x1c8, 0x270, 0x2f8, 0x378,
                                           0x458, 0x488, 0x490, 0x498, 0x4a0, 0x4d8,
                                           0x000, 0x060, 0x080, 0x110, 0x120, 0x12c, 0x140};
#define JFP_JOB_RECORD_LAYOUT 1
#else
#define JFP_JOB_RECORD_LAYOUT 0
#endif

}  // namespace jfp_plugin
