#include "model/request/update_rpc.h"

#include <cstring>

#include "model/policy/policy.h"
#include "model/request/request_caps.h"

namespace jfp {

namespace {

// The string fields of a request but the script, in one order for copying and comparing.
template <class Req, class F>
void each_text(Req &r, F &&f) {
    f(0, r.name), f(1, r.account), f(2, r.partition), f(3, r.qos), f(4, r.comment), f(5, r.submit_line),
        f(6, r.dependency), f(7, r.array_inx), f(8, r.work_dir), f(9, r.tres_per_node), f(10, r.tres_per_job),
        f(11, r.tres_per_task), f(12, r.tres_per_socket);
}

// A null view (not given) and an empty one (given as "") differ: the update clears a field with the latter.
bool same_text(std::string_view a, std::string_view b) { return (a.data() == nullptr) == (b.data() == nullptr) && a == b; }

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

OwnedRequest::OwnedRequest(const SubmitRequest &given) : req_(given) {
    req_.script = {};
    req_.env = nullptr;
    req_.env_count = 0;
    req_.submit_time = 0;
    each_text(req_, [&](int i, std::string_view &v) {
        if (!v.data()) return;
        text_[i].assign(v.data(), v.size());
        v = text_[i];
    });
}

bool OwnedRequest::same_as(const SubmitRequest &g) const {
    if (!keepable(g)) return false;
    const SubmitRequest &m = req_;
    if (g.uid != m.uid || g.mem_per_cpu != m.mem_per_cpu || g.has_script != m.has_script || g.exclusive != m.exclusive ||
        g.max_script_size != m.max_script_size)
        return false;
    if (!same_bits(g.min_cpus, m.min_cpus) || !same_bits(g.num_tasks, m.num_tasks) ||
        !same_bits(g.cpus_per_task, m.cpus_per_task) || !same_bits(g.min_nodes, m.min_nodes) ||
        !same_bits(g.time_limit_min, m.time_limit_min) || !same_bits(g.mem_mb, m.mem_mb))
        return false;
    bool same = true;
    std::string_view mine[13];
    each_text(m, [&](int i, std::string_view v) { mine[i] = v; });
    each_text(g, [&](int i, std::string_view v) { same = same && same_text(v, mine[i]); });
    return same;
}

PreparedUpdate::PreparedUpdate(const SubmitRequest &given) : fields(given), delta(fields.request()) {
    normalise(delta);
    if (!delta.comment.empty()) {
        neutral_comment = neutralize(delta.comment);
        comment_neutralized = neutral_comment.has_value();
        if (!neutral_comment) neutral_comment = std::string(delta.comment);
    }
    const SubmitRequest &d = delta;
    request_changes = d.name.data() || d.partition.data() || d.account.data() || d.qos.data() || d.dependency.data() ||
                      known(d.time_limit_min) || known(d.mem_mb) || known(d.min_cpus) || known(d.num_tasks) ||
                      known(d.cpus_per_task) || known(d.min_nodes) || d.tres_per_job.data() || d.tres_per_node.data() ||
                      d.tres_per_task.data() || d.tres_per_socket.data();
}

bool RecordMemo::matches(const RecordInputs &in, const std::shared_ptr<const void> &state, uint64_t generation) const {
    if (!valid_ || !after_ || generation != generation_ || state_.lock() != state) return false;
    if (in.owner != owner_ || in.privileged != privileged_ || in.comment != comment_ || in.user != user_) return false;
    const SubmissionFacts &f = *in.facts;
    if (!same_bits(f.array_size, facts_.array_size) || f.script_known != facts_.script_known ||
        std::memcmp(f.script.data(), facts_.script.data(), sizeof f.script) != 0 ||
        !same_bits(f.findings.ignored_sbatch, facts_.findings.ignored_sbatch) ||
        !same_bits(f.findings.missing_modules, facts_.findings.missing_modules))
        return false;
    // The judged time is the RPC's: equal for all its records, and compared as a number like the rest.
    return in.after.submit_time == after_time_ && after_->same_as(in.after);
}

bool RecordMemo::remember(const RecordInputs &in, const std::shared_ptr<const void> &state, uint64_t generation) {
    valid_ = false;
    after_.reset();
    if (!OwnedRequest::keepable(in.after)) return false;
    after_ = std::make_unique<OwnedRequest>(in.after);
    after_time_ = in.after.submit_time;
    state_ = state;
    generation_ = generation;
    owner_ = in.owner;
    privileged_ = in.privileged;
    facts_ = *in.facts;
    comment_.assign(in.comment);
    user_.assign(in.user);
    return true;
}

SubmitRequest RecordMemo::request() const {
    SubmitRequest r = after_->request();
    r.submit_time = after_time_;
    return r;
}

bool UpdateRpc::continues(const void *desc, std::string_view job_id, const SubmitRequest &given, uint64_t now_ns) const {
    return prepared_ && desc == desc_ && now_ns - last_end_ns_ <= kGapNs && job_id == job_id_ && prepared_->fields.same_as(given);
}

void UpdateRpc::start(const void *desc, std::string_view job_id, const SubmitRequest &given, uint64_t id, int64_t judged_at,
                      uint64_t now_ns) {
    last_end_ns_ = now_ns;
    spent_ns_ = unjudged_ = judged_ = 0;
    job_id_.assign(job_id);
    records_.clear();
    memo.forget();
    prepared_.reset();
    desc_ = desc;
    id_ = id;
    judged_at_ = judged_at;
    prepared_ = std::make_unique<PreparedUpdate>(given);
}

}  // namespace jfp
