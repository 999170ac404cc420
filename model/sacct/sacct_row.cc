#include "model/sacct/sacct_row.h"

#include "model/jobs/slurm_text.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

using Col = SacctCol;

void apply_submit_line(JobRecord &r, std::string_view sl) {
    if (sl.empty()) return;
    r.submit_line = std::string(sl);
    auto word_end = sl.find(' ');
    auto cmd = sl.substr(0, word_end);
    auto slash = cmd.rfind('/');
    if (slash != std::string_view::npos) cmd = cmd.substr(slash + 1);
    r.interactive = (cmd == "srun" || cmd == "salloc") ? 1 : 0;
    r.has_dependency = (sl.find("--dependency") != std::string_view::npos || sl.find(" -d ") != std::string_view::npos) ? 1 : 0;
}

SacctRow read_sacct_row(const SacctLayout &layout, const std::vector<std::string_view> &f,
                        const std::string &default_cluster) {
    auto field = [&](Col c) { return layout.field(f, c); };
    auto has = [&](Col c) { return layout.has(c); };
    SacctRow row;
    std::string_view key = has(Col::JobIDRaw) ? field(Col::JobIDRaw) : field(Col::JobID);
    auto raw = parse_job_id(key);
    std::string cluster = has(Col::Cluster) && !field(Col::Cluster).empty() ? std::string(field(Col::Cluster))
                                                                           : default_cluster;
    auto outcome = outcome_from_state(field(Col::State));

    if (!raw->step.empty()) {
        row.kind = SacctRow::Kind::Step;
        StepInfo &s = row.step;
        s.cluster = std::move(cluster);
        s.job_key = std::string(raw->job);
        if (auto rss = parse_size_mb(field(Col::MaxRSS))) s.max_rss_mb = *rss;
        s.out_of_memory = outcome && *outcome == Outcome::OutOfMemory;
        row.batch_step = raw->step == "batch";
        return row;
    }

    JobRecord &r = row.job;
    r.cluster = std::move(cluster);
    r.job_key = std::string(raw->job);
    std::string_view shown = has(Col::JobID) ? field(Col::JobID) : key;
    r.job_id = std::string(shown);
    if (auto shown_parts = parse_job_id(shown)) r.array_job = std::string(shown_parts->array_job);
    r.user = has(Col::User) ? std::string(field(Col::User)) : "uid:" + std::string(field(Col::UID));
    if (auto uid = parse_int(field(Col::UID)); uid && *uid >= 0) r.uid = *uid;
    if (r.user.empty() || r.user == "uid:") {
        row.problem = "empty User on a job row";
        return row;
    }
    r.account = std::string(field(Col::Account));
    r.partition = std::string(field(Col::Partition));
    r.qos = std::string(field(Col::QOS));
    r.name = std::string(field(Col::JobName));
    auto submit = parse_sacct_time(field(Col::Submit));
    if (!submit) {
        row.problem = "job row without a Submit time";
        return row;
    }
    r.submit = *submit;
    if (auto t = parse_sacct_time(field(Col::Start))) r.start = *t;
    if (auto t = parse_sacct_time(field(Col::End))) r.end = *t;
    r.outcome = *outcome;
    {
        auto st = field(Col::State);
        auto sp = st.find(' ');
        r.state = std::string(sp == std::string_view::npos ? st : st.substr(0, sp));
    }
    if (r.outcome != Outcome::Unfinished && r.end == 0) r.outcome = Outcome::Unfinished;  // no end, no verdict
    if (auto e = parse_exit_code(field(Col::ExitCode))) {
        r.exit_code = e->code;
        r.exit_signal = e->signal;
    }

    Tres tres = parse_tres(field(Col::ReqTRES));
    if (auto v = parse_double(field(Col::ReqCPUS)); v && *v > 0) r.req_cpus = *v;
    else if (known(tres.cpu)) r.req_cpus = tres.cpu;
    else if (auto a = parse_double(field(Col::AllocCPUS)); a && *a > 0) r.req_cpus = *a;
    else if (auto n = parse_double(field(Col::NCPUS)); n && *n > 0) r.req_cpus = *n;
    if (auto v = parse_double(field(Col::ReqNodes)); v && *v > 0) r.req_nodes = *v;
    else if (known(tres.node)) r.req_nodes = tres.node;
    else if (auto a = parse_double(field(Col::AllocNodes)); a && *a > 0) r.req_nodes = *a;
    else if (auto n = parse_double(field(Col::NNodes)); n && *n > 0) r.req_nodes = *n;
    if (auto m = parse_req_mem(field(Col::ReqMem))) {
        double nodes = known(r.req_nodes) ? r.req_nodes : 1.0;
        r.req_mem_mb = m->total_mb(r.req_cpus, nodes);
    } else if (known(tres.mem_mb)) {
        r.req_mem_mb = tres.mem_mb;
    }
    if (known(tres.gpu)) r.req_gpus = tres.gpu;
    else if (has(Col::ReqGRES)) r.req_gpus = parse_gpu_request(field(Col::ReqGRES));
    else if (has(Col::ReqTRES) && !field(Col::ReqTRES).empty()) r.req_gpus = 0;
    if (auto tl = parse_timelimit_minutes(field(Col::Timelimit))) r.timelimit_min = *tl;
    else if (auto raw_tl = parse_int(field(Col::TimelimitRaw))) r.timelimit_min = static_cast<double>(*raw_tl);
    if (auto el = parse_double(field(Col::ElapsedRaw))) r.elapsed_s = *el;
    else if (auto d = parse_duration_seconds(field(Col::Elapsed))) r.elapsed_s = *d;
    else if (r.start > 0 && r.end >= r.start) r.elapsed_s = static_cast<double>(r.end - r.start);
    if (auto rss = parse_size_mb(field(Col::MaxRSS))) r.max_rss_mb = *rss;

    apply_submit_line(r, field(Col::SubmitLine));
    r.jfp_token = extract_jfp_token(std::string(field(Col::AdminComment)));

    row.kind = SacctRow::Kind::Job;
    return row;
}

}  // namespace jfp
