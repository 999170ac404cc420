#include "model/request/submit_request.h"

#include <cmath>

#include "model/history/history.h"
#include "model/jobs/slurm_text.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

JobRequest resolve_request(const SubmitRequest &s, const std::string &user, const ClusterDefaults &d,
                           const HistorySnapshot *h) {
    JobRequest r;
    r.user = user;
    r.name = std::string(s.name);
    r.partition = std::string(first_partition(s.partition));
    if (r.partition.empty()) r.partition = d.default_partition;
    // Account and QOS come from the user's association after job_submit; the user's latest choice in the
    // history stands in for it.
    // As slurmctld will hold them: it lowercases an account after job_submit, and matches QOS names without
    // case (a user's "-A PROJ" is account proj, its thresholds and history).
    r.account = to_lower(s.account);
    if (r.account.empty() && h)
        if (const std::string *a = h->account_of(user)) r.account = *a;
    r.qos = to_lower(s.qos);
    if (r.qos.empty() && h)
        if (const std::string *q = h->qos_of(user)) r.qos = *q;
    r.submit_time = s.submit_time ? s.submit_time : naive_local_now();

    // CPUs as slurmctld counts them: an explicit minimum, else tasks x CPUs per task, else one task.
    double cpt = known(s.cpus_per_task) && s.cpus_per_task > 0 ? s.cpus_per_task : 1;
    if (known(s.min_cpus) && s.min_cpus > 0) r.req_cpus = s.min_cpus;
    else if (known(s.num_tasks) && s.num_tasks > 0) r.req_cpus = s.num_tasks * cpt;
    else r.req_cpus = cpt;
    if (known(s.num_tasks) && s.num_tasks > 0 && s.num_tasks * cpt > r.req_cpus) r.req_cpus = s.num_tasks * cpt;
    r.req_nodes = known(s.min_nodes) && s.min_nodes > 0 ? s.min_nodes : 1;

    const PartitionDefaults *p = d.partition(r.partition);
    if (known(s.time_limit_min)) r.timelimit_min = s.time_limit_min;
    else if (p && p->default_time_min) r.timelimit_min = *p->default_time_min;

    if (known(s.mem_mb) && s.mem_mb > 0) {
        r.req_mem_mb = s.mem_per_cpu ? s.mem_mb * r.req_cpus : s.mem_mb * r.req_nodes;
    } else if (p && p->def_mem_per_cpu_mb) {
        r.req_mem_mb = *p->def_mem_per_cpu_mb * r.req_cpus;
    } else if (p && p->def_mem_per_node_mb) {
        r.req_mem_mb = *p->def_mem_per_node_mb * r.req_nodes;
    } else if (d.def_mem_per_cpu_mb) {
        r.req_mem_mb = *d.def_mem_per_cpu_mb * r.req_cpus;
    } else if (d.def_mem_per_node_mb) {
        r.req_mem_mb = *d.def_mem_per_node_mb * r.req_nodes;
    } else if (p && p->node_mem_mb) {
        r.req_mem_mb = *p->node_mem_mb * r.req_nodes;  // no default anywhere: a whole node's memory
    }

    double tasks = known(s.num_tasks) && s.num_tasks > 0 ? s.num_tasks : 1;
    double gpus = parse_gpu_request(s.tres_per_job) + parse_gpu_request(s.tres_per_node) * r.req_nodes +
                  parse_gpu_request(s.tres_per_task) * tasks + parse_gpu_request(s.tres_per_socket) * r.req_nodes;
    r.req_gpus = gpus;

    // Counted as slurmctld counts it; a spec it would refuse, or one too costly to count, is unknown.
    r.array_size = 1;
    if (!s.array_inx.empty()) r.array_size = array_task_count(s.array_inx, d.max_array_size).value_or(kUnknown);
    r.has_dependency = s.dependency.empty() ? 0 : 1;
    r.interactive = s.has_script ? 0 : 1;
    r.exclusive = s.exclusive;
    r.script = s.script;
    r.script_known = s.has_script;
    r.work_dir = s.work_dir;
    r.submit_line = s.submit_line;
    return r;
}

}  // namespace jfp
