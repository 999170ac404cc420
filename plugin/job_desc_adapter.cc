#include "job_desc_adapter.h"

#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>

#include "model/util/time_util.h"
#include "job_record_layout.h"
#include "slurm_glue.h"

namespace jfp_plugin {

namespace {

std::string_view sv(const char *s) { return s ? std::string_view(s) : std::string_view(); }

double num32(uint32_t v) { return v == NO_VAL ? jfp::kUnknown : static_cast<double>(v); }
double num16(uint16_t v) { return v == NO_VAL16 ? jfp::kUnknown : static_cast<double>(v); }

// Replaces a Slurm string with a copy of text, from Slurm's allocator.
void set_string(char **field, const std::string &text) {
    char *copy = slurm_xstrdup(text.c_str());
    slurm_xfree(reinterpret_cast<void **>(field));
    *field = copy;
}

}  // namespace

// strlen over a 50 KiB script was ~5% of job_submit (bench/hotpath, perf). slurmctld unpacks every
// string of the request into Slurm's allocator, which keeps each block's size in the two words before
// it (magic, size; src/common/xmalloc.c) and the unpacked script fills its block exactly: size =
// length + 1. That is trusted only when the magic is there, the last byte is the terminator and the
// one before is not; otherwise (a block grown by xstrcat, zero-padded, or any other layout) strlen.
// A script with an embedded NUL that Slurm packed would be measured to its packed end, which is
// within the block either way.
std::string_view slurm_string(const char *s) {
    if (!s) return {};
    constexpr size_t kXmallocMagic = 0x42;
    size_t head[2];
    std::memcpy(head, s - sizeof head, sizeof head);
    size_t size = head[1];
    if (head[0] == kXmallocMagic && size >= 2 && size < (size_t{1} << 40) && s[size - 1] == '\0' && s[size - 2] != '\0')
        return {s, size - 1};
    return {s, std::strlen(s)};
}

jfp::SubmitRequest to_submit_request(const job_desc_msg_t *d, uint32_t submit_uid) {
    jfp::SubmitRequest r;
    r.uid = (d->user_id != NO_VAL && d->user_id != static_cast<uint32_t>(-1)) ? d->user_id : submit_uid;
    r.name = sv(d->name);
    r.account = sv(d->account);
    r.partition = sv(d->partition);
    r.qos = sv(d->qos);
    r.comment = sv(d->comment);
    r.script = slurm_string(d->script);
    r.has_script = d->script != nullptr;
    r.submit_line = sv(d->submit_line);
    r.dependency = sv(d->dependency);
    r.array_inx = sv(d->array_inx);
    r.work_dir = sv(d->work_dir);
    if (d->environment && d->env_size != NO_VAL) {
        r.env = d->environment;
        r.env_count = d->env_size;
    }
    r.tres_per_node = sv(d->tres_per_node);
    r.tres_per_job = sv(d->tres_per_job);
    r.tres_per_task = sv(d->tres_per_task);
    r.tres_per_socket = sv(d->tres_per_socket);
    r.min_cpus = num32(d->min_cpus);
    r.exclusive = d->shared == JOB_SHARED_NONE;  // --exclusive (NO_VAL16 when not given)
    r.num_tasks = num32(d->num_tasks);
    r.cpus_per_task = num16(d->cpus_per_task);
    r.min_nodes = num32(d->min_nodes);
    if (d->time_limit == INFINITE) r.time_limit_min = std::numeric_limits<double>::infinity();
    else r.time_limit_min = num32(d->time_limit);
    if (d->pn_min_memory != NO_VAL64) {
        r.mem_per_cpu = (d->pn_min_memory & MEM_PER_CPU) != 0;
        r.mem_mb = static_cast<double>(d->pn_min_memory & ~MEM_PER_CPU);
    }
    r.submit_time = jfp::naive_local_now();
    // max_script_size as slurm.conf says now (slurmctld itself reads it once, at start): it bounds what the
    // script archive keeps, not whether the job is judged.
    if (const char *p = slurm_conf.sched_params ? std::strstr(slurm_conf.sched_params, "max_script_size=") : nullptr)
        r.max_script_size = static_cast<size_t>(std::strtoull(p + std::strlen("max_script_size="), nullptr, 10));
    return r;
}

std::string job_id_of(const job_desc_msg_t *d) {
    if (d->job_id_str && *d->job_id_str) return d->job_id_str;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
    uint32_t id = d->step_id.job_id;  // 26.05: job_desc_msg_t carries a slurm_step_id_t, no job_id
#else
    uint32_t id = d->job_id;
#endif
    return id != NO_VAL && id != 0 ? std::to_string(id) : std::string();
}

namespace {

template <class T>
T field_at(const void *base, size_t offset) {
    T v;
    std::memcpy(&v, static_cast<const char *>(base) + offset, sizeof v);
    return v;
}

std::string_view string_at(const void *base, size_t offset) {
    const char *s = field_at<const char *>(base, offset);
    return s ? std::string_view(s) : std::string_view();
}

}  // namespace

const char *job_record_layout_releases() {
#if JFP_JOB_RECORD_LAYOUT
    return kJobRecordLayout.measured_on;
#else
    return nullptr;
#endif
}

jfp::JobRecordView read_job_record(const job_record *job_ptr) {
    jfp::JobRecordView v;
#if JFP_JOB_RECORD_LAYOUT
    const JobRecordLayout &L = kJobRecordLayout;
    if (!job_ptr || field_at<uint32_t>(job_ptr, L.magic) != kJobMagic) return v;
    // slurmctld hands job_modify the record it will update (a het component, a split array task, "JobId=0123"
    // included): the record decides, not the id the user typed. Its job id and owner, read mid-record, must
    // be plausible: a layout that drifted reads neither the cookies nor these.
    uint32_t id = field_at<uint32_t>(job_ptr, L.job_id), owner = field_at<uint32_t>(job_ptr, L.user_id);
    if (id == 0 || id >= NO_VAL || owner >= NO_VAL) return v;
    const void *details = field_at<const void *>(job_ptr, L.details);
    if (!details || field_at<uint32_t>(details, L.d_magic) != kDetailsMagic) return v;
    jfp::SubmitRequest &r = v.job;
    v.job_id = id;
    v.owner_uid = field_at<uint32_t>(job_ptr, L.user_id);
    r.uid = v.owner_uid;
    r.name = string_at(job_ptr, L.name);
    r.account = string_at(job_ptr, L.account);
    r.partition = string_at(job_ptr, L.partition);
    // The QOS slurmctld resolved: slurmdb_qos_rec_t is public, its name read as job_submit/lua reads it.
    if (const auto *qos = field_at<const slurmdb_qos_rec_t *>(job_ptr, L.qos_ptr); qos && qos->name) r.qos = qos->name;
    r.comment = string_at(job_ptr, L.comment);
    v.admin_comment = string_at(job_ptr, L.admin_comment);
    r.dependency = string_at(details, L.d_dependency);
    r.tres_per_job = string_at(job_ptr, L.tres_per_job);
    r.tres_per_node = string_at(job_ptr, L.tres_per_node);
    r.tres_per_task = string_at(job_ptr, L.tres_per_task);
    r.tres_per_socket = string_at(job_ptr, L.tres_per_socket);
    r.has_script = field_at<uint16_t>(job_ptr, L.batch_flag) != 0;
    uint32_t tl = field_at<uint32_t>(job_ptr, L.time_limit);
    r.time_limit_min = tl == INFINITE ? std::numeric_limits<double>::infinity() : num32(tl);
    r.min_cpus = num32(field_at<uint32_t>(details, L.d_min_cpus));
    r.min_nodes = num32(field_at<uint32_t>(details, L.d_min_nodes));
    r.num_tasks = num32(field_at<uint32_t>(details, L.d_num_tasks));
    r.cpus_per_task = num16(field_at<uint16_t>(details, L.d_cpus_per_task));
    uint64_t mem = field_at<uint64_t>(details, L.d_pn_min_memory);
    if (mem != NO_VAL64) {
        r.mem_per_cpu = (mem & MEM_PER_CPU) != 0;
        r.mem_mb = static_cast<double>(mem & ~MEM_PER_CPU);
    }
    v.readable = true;
#else
    (void)job_ptr;
#endif
    return v;
}

int apply_outcome(job_desc_msg_t *d, const jfp::SubmitOutcome &o, char **err_msg) {
    if (o.new_comment) set_string(&d->comment, *o.new_comment);
    if (!o.admin_comment_append.empty() && !(d->admin_comment && *d->admin_comment)) {
        set_string(&d->admin_comment, o.admin_comment_append);
    } else if (!o.admin_comment_append.empty()) {
        std::string admin = d->admin_comment;
        if (!admin.empty()) admin += ' ';
        admin += o.admin_comment_append;
        set_string(&d->admin_comment, admin);
    }
    if (!o.user_message.empty() && err_msg) {
        // An earlier plugin may have said something already: add to it.
        std::string msg = *err_msg ? std::string(*err_msg) + "\n" + o.user_message : o.user_message;
        set_string(err_msg, msg);
    }
    return o.reject ? ESLURM_ACCESS_DENIED : SLURM_SUCCESS;
}

}  // namespace jfp_plugin
