// A job record laid out as this Slurm release's slurmctld lays it out (plugin/job_record_layout.h), for
// driving the plugin's job_modify without slurmctld.
#pragma once

#include <slurm/slurm.h>
#include <slurm/slurmdb.h>

#include <cstring>

#include "plugin/job_record_layout.h"

struct job_record;

#if JFP_JOB_RECORD_LAYOUT
// slurmctld's job_record and job_details as this release lays them out (plugin/job_record_layout.h).
struct FakeRecord {
    alignas(8) unsigned char job[4096] = {};
    alignas(8) unsigned char details[1024] = {};
    slurmdb_qos_rec_t qos{};
    template <class T>
    void put(unsigned char *base, size_t off, T v) { std::memcpy(base + off, &v, sizeof v); }
    FakeRecord(uint32_t id, uint32_t uid) {
        const auto &L = jfp_plugin::kJobRecordLayout;
        put(job, L.magic, jfp_plugin::kJobMagic);
        put(job, L.job_id, id);
        put(job, L.user_id, uid);
        put(job, L.details, static_cast<void *>(details));
        put(details, L.d_magic, jfp_plugin::kDetailsMagic);
        put(job, L.time_limit, uint32_t{NO_VAL});
        for (size_t o : {L.d_min_cpus, L.d_min_nodes, L.d_num_tasks}) put(details, o, uint32_t{NO_VAL});
        put(details, L.d_cpus_per_task, uint16_t{NO_VAL16});
        put(details, L.d_pn_min_memory, uint64_t{NO_VAL64});
    }
    const job_record *record() const { return reinterpret_cast<const job_record *>(job); }
};

#endif
