// scontrol update: job_modify, once per record the update reaches (update_rpc.h says what is done once per RPC).

#include "model/runtime/engine.h"
#include "model/request/request_caps.h"
#include "model/util/log.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

namespace {

// The record's time into the update histograms, however the call ends.
struct UpdateTimer {
    UpdateLatency &latency;
    UpdateRpc &rpc;
    uint64_t t0;
    ~UpdateTimer() {
        uint64_t end = monotonic_ns();
        latency.add(rpc.id(), end - t0, end);
        rpc.record_done(end, end - t0);
    }
};

}  // namespace

SubmitOutcome Engine::evaluate_update(const std::string &job_id, const SubmitRequest &delta, uint32_t updater_uid,
                                      const JobRecordView &job) {
    UpdateRpc own;  // an RPC of its own
    return evaluate_update(own, nullptr, job_id, delta, updater_uid, job);
}

SubmitOutcome Engine::evaluate_update(UpdateRpc &rpc, const void *desc, const std::string &job_id,
                                      const SubmitRequest &given, uint32_t updater_uid, const JobRecordView &job) {
    const uint64_t t0 = monotonic_ns();
    const uint32_t record = job.readable ? job.job_id : 0;
    if (!rpc.continues(desc, job_id, given, t0) || rpc.reached(record))
        rpc.start(desc, job_id, given, update_rpcs_.fetch_add(1, std::memory_order_relaxed) + 1, naive_local_now(), t0);
    rpc.reach(record);
    UpdateTimer timed{update_latency_, rpc, t0};
    SubmitOutcome out;
    auto st = state();
    if (!st->config_present || st->config.mode == Mode::Off) return out;
    const PreparedUpdate &p = *rpc.prepared();
    const SubmitRequest &delta = p.delta;
    if (p.comment_neutralized) {
        out.new_comment = *p.neutral_comment;
        counters_.add(Counter::Neutralized);
    }
    if (!p.request_changes && !p.neutral_comment) return out;
    if (!st->model) return out;
    // The whole RPC runs under slurmctld's job write lock, and its records can each need a judgement of their
    // own (a split array whose tasks differ, each named otherwise): past the budget, the RPC's further records
    // keep what they had. Counted on time spent, so no shape of record escapes it.
    const double budget_ms = st->config.update_budget_ms;
    if (budget_ms > 0 && static_cast<double>(rpc.spent_ns()) >= budget_ms * 1e6) {
        counters_.add(Counter::UpdateUnjudged);
        if (rpc.left_unjudged())
            update_budget_log_.log(LogLevel::Info,
                                   "update of job " + quote_log_field(job_id, 40) + " by uid " + std::to_string(updater_uid) +
                                       ": jfp's time for one update RPC (update_budget_ms = " + number_text(budget_ms) +
                                       ") was spent on its first " + std::to_string(rpc.judged_before_budget()) +
                                       " job records; its further records are not judged and keep the comment they had (the stats "
                                       "line counts them; raise update_budget_ms to judge more, at the cost of time under slurmctld's "
                                       "job write lock)");
        return out;
    }

    // Whose job, and what it is now: slurmctld's record. An update by anyone but the owner, root or
    // SlurmUser is slurmctld's to refuse (22.05 refuses it only after job_modify): jfp neither judges nor
    // records it.
    SubmitRequest after;
    std::optional<SubmissionFacts> facts;
    JoinToken token;
    uint32_t owner = updater_uid;
    std::string_view comment = p.neutral_comment ? std::string_view(*p.neutral_comment) : std::string_view();
    if (job.readable) {
        owner = job.owner_uid;
        if (updater_uid != owner && !privileged(updater_uid)) {
            counters_.add(Counter::UpdateNotOwner);
            log_debug("update of job " + quote_log_field(job_id, 40) + " by uid " + std::to_string(updater_uid) + " (the job is uid " +
                      std::to_string(owner) + "'s) not judged: slurmctld decides whether that user may update it");
            return out;
        }
        SubmitRequest now = job.job;
        normalise(now);
        if (!p.neutral_comment) comment = user_part_of_comment(now.comment);
        after = merge_update(now, delta);
        after.uid = owner;
        if (std::string t = extract_jfp_token(std::string(job.admin_comment)); !t.empty() && JoinToken::fits(t)) token = t;
        facts = parse_submission_facts(job.admin_comment);
        if (!facts) facts = SubmissionFacts{};
    } else {
        // Nothing durable to go on: the update is judged as a fresh submission of what it says.
        counters_.add(Counter::UpdateUnknown);
        after = delta;
        after.uid = updater_uid;
        facts = SubmissionFacts{};
    }
    counters_.add(Counter::Updated);
    rpc.judged();
    after.submit_time = rpc.judged_at();  // every record of one RPC is judged at the RPC's time
    auto history_lock = read_history(*st);
    const std::string user = user_name(*st, owner);
    const bool priv = privileged(updater_uid);
    // The same inputs as the last record of this RPC (the usual split array): the same judgement. The memo
    // owns its copy of the request, so what the judgement keeps a view of outlives this record.
    const RecordInputs in{after, owner, priv, &*facts, comment, user};
    const uint64_t generation = history_lock_.generation();
    Candidate fresh;
    Candidate *c = &rpc.memo.judged;
    if (!rpc.memo.matches(in, st, generation)) {
        // A list's entries worth judging depend on the list and the state, not the record: once per RPC.
        const std::vector<std::string> *entries = nullptr;
        if (after.partition.find(',') != std::string_view::npos) {
            auto &memo = rpc.partitions;
            if (memo.list != after.partition || memo.state.lock() != st) {
                memo.entries = partitions_to_judge(*st, after.partition);
                memo.list.assign(after.partition);
                memo.state = st;
            }
            entries = &memo.entries;
        }
        const JudgeContext ctx{user, priv, comment, ScriptScan::Now, &*facts, facts->findings};
        if (rpc.memo.remember(in, st, generation)) {
            judge_request(*st, names_, rpc.memo.request(), ctx, *c, entries);
            rpc.memo.confirm();
        } else {
            c = &fresh;
            judge_request(*st, names_, after, ctx, *c, entries);
        }
    }
    out.token = token;  // the job keeps its token; its feature-log row is replaced
    // No token (a job from before jfp, or a record jfp cannot read): nothing to tie a log row to.
    fill_outcome(*st, *c, comment, owner, OutcomeFor{true, !token.empty(), DeferredScript(), {}}, out);
    out.admin_comment_append.clear();  // slurmctld refuses an AdminComment in a user's update
    if (!out.new_comment && p.neutral_comment && !delta.comment.empty()) out.new_comment = *p.neutral_comment;
    return out;
}

}  // namespace jfp
