#include "job_desc_adapter.h"

#include <slurm/slurm_errno.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>

#include "model/util/time_util.h"
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

namespace {

// SchedulerParameters' max_script_size, else Slurm's default (4 MiB, as measured on 22.05 to 26.05).
size_t max_script_size() {
    constexpr size_t kDefault = size_t{4} << 20;
    const char *p = slurm_conf.sched_params ? std::strstr(slurm_conf.sched_params, "max_script_size=") : nullptr;
    if (!p) return kDefault;
    char *end = nullptr;
    unsigned long long v = std::strtoull(p + std::strlen("max_script_size="), &end, 10);
    return end && end != p && v > 0 ? static_cast<size_t>(v) : kDefault;
}

// The largest task index an array spec names ("0-9999%10", "1,3,5-7:2"): its largest number before '%'.
uint64_t largest_array_index(std::string_view spec) {
    uint64_t largest = 0, cur = 0;
    bool in_number = false, after_step = false;
    for (char c : spec) {
        if (c == '%') break;
        if (c >= '0' && c <= '9') {
            cur = cur > (uint64_t{1} << 40) ? cur : cur * 10 + static_cast<uint64_t>(c - '0');
            in_number = true;
            continue;
        }
        if (in_number && !after_step) largest = std::max(largest, cur);
        in_number = false;
        cur = 0;
        after_step = c == ':';  // "5-7:2": the 2 is a step, not an index
    }
    if (in_number && !after_step) largest = std::max(largest, cur);
    return largest;
}

}  // namespace

const char *slurm_refusal(const job_desc_msg_t *d, std::string_view script) {
    constexpr size_t kMaxString = 1024;  // job_create_request's strlen() limit for name and comment
    if (d->name && std::strlen(d->name) > kMaxString) return "job name longer than 1024 bytes";
    if (d->comment && std::strlen(d->comment) > kMaxString) return "comment longer than 1024 bytes";
    if (script.size() > max_script_size()) return "script larger than max_script_size";
    if (d->array_inx && slurm_conf.max_array_sz > 0 && largest_array_index(d->array_inx) >= slurm_conf.max_array_sz)
        return "array index not below MaxArraySize";
    return nullptr;
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
    if (const char *why = slurm_refusal(d, r.script)) r.slurm_refuses = why;
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

bool admin_comment_of(const job_record *job_ptr, const std::string &job_id, std::string &out) {
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
    static_assert(offsetof(JobRecordHead, magic) == 0x18 && offsetof(JobRecordHead, admin_comment) == 0x28,
                  "26.05's job_record head as measured: see job_desc_adapter.h");
#else
    static_assert(offsetof(JobRecordHead, admin_comment) == 0x10, "job_record head as measured: see job_desc_adapter.h");
#endif
    if (!job_ptr) return false;
    JobRecordHead h;
    std::memcpy(&h, job_ptr, sizeof h);
    if (h.magic != kJobMagic) return false;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
    if (!job_id.empty() && job_id != std::to_string(h.step_id.job_id)) return false;
#else
    (void)job_id;
#endif
    out = h.admin_comment ? h.admin_comment : "";
    return true;
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
