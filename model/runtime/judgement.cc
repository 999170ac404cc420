#include "model/runtime/judgement.h"

#include <algorithm>
#include <array>

#include "model/policy/job_price.h"
#include "model/policy/policy.h"
#include "model/request/request_caps.h"
#include "model/script/script_fingerprint.h"
#include "model/util/log.h"
#include "model/util/time_util.h"

namespace jfp {

namespace {

int severity(const Decision &d) { return static_cast<int>(d.action) * 2 + (d.flagged ? 1 : 0); }

}  // namespace

void judge_request(const PublishedState &st, NameIdentityCache &names, const SubmitRequest &req, const JudgeContext &ctx,
                   JudgedRequest &best, const std::vector<std::string> *given_entries) {
    using Candidate = JudgedRequest;
    const std::string &user = ctx.user;
    const SubmissionFacts *facts = ctx.facts;
    const FindingCounts &findings = ctx.findings;
    const ScriptScan scan = ctx.scan;
    const ModelBundle &model = *st.model;
    const HistorySnapshot *history = st.history.get();
    // Once per request, whatever the partitions (an update has no script at hand: its name alone); the name's
    // identity once per request, and kept for the next request of the same name (an update's records).
    const uint64_t fingerprint = !facts && req.has_script ? script_fingerprint(req.script) : 0;
    NameIdentityCache::Held held;
    const NameIdentity *identity = nullptr;
    auto score = [&](Candidate &c, const SubmitRequest &one, ScriptScan how) {
        c.r = resolve_request(one, user, *st.defaults, history);
        c.r.script_fingerprint = fingerprint;
        c.r.privileged = ctx.privileged;
        c.r.script_ignored_sbatch = findings.ignored_sbatch;
        c.r.script_missing_modules = findings.missing_modules;
        if (facts) {  // an update: the script is not at hand, its traits (and the array) are the submission's
            c.r.script_known = false;
            c.r.array_size = facts->array_size;
        }
        if (history && !identity) identity = &names.get(c.r.name, held);
        c.hv = history ? history->index.lookup(c.r, *identity) : HistoryView{};
        build_features(c.r, c.hv, c.x, how);
        if (facts && facts->script_known)
            std::copy(facts->script.begin(), facts->script.end(), c.x.begin() + F_script_bytes);
    };
    auto decide = [&](Candidate &c) {
        const uint64_t t0 = ctx.walk_ns ? monotonic_ns() : 0;
        c.s = model.score_failure(c.x);
        if (t0) *ctx.walk_ns += monotonic_ns() - t0;
        if (st.config.decide_by == DecideBy::Waste) {
            WasteInput w = price_job(c.r, c.hv, *st.defaults, model.waste_budget(), model.waste_unit());
            apply_policy(st.config, c.r, c.hv, ctx.comment, model.threshold(), c.s, c.d, model.below_target(), &w);
        } else {
            apply_policy(st.config, c.r, c.hv, ctx.comment, model.threshold(), c.s, c.d, model.below_target());
        }
        // The class is said (annotation, message, log line) only of a job at or above its threshold (a
        // warning or a refusal always is), or in a debug line; below it the class trees, most of the
        // walk, are not walked.
        if (c.d.flagged || c.d.action == Action::Warn || c.d.action == Action::Reject || debug_enabled()) {
            const uint64_t t1 = ctx.walk_ns ? monotonic_ns() : 0;
            model.classify(c.x, c.s);
            if (t1) *ctx.walk_ns += monotonic_ns() - t1;
            c.d.top_class = c.s.top_class;
        }
    };
    if (req.partition.find(',') == std::string_view::npos) {  // nearly every job: one way to run
        score(best, req, scan);
        decide(best);
        return;
    }
    // A list: the job runs in whichever partition starts it, so it is judged by the strictest.
    std::vector<std::string> own;
    const std::vector<std::string> &entries = given_entries ? *given_entries : (own = partitions_to_judge(st, req.partition));
    if (entries.size() <= 1) {
        SubmitRequest one = req;
        one.partition = entries.empty() ? std::string_view() : std::string_view(entries[0]);
        score(best, one, scan);
        decide(best);
        return;
    }
    bool first = true;
    std::array<float, kScriptFeatureCount> script{};
    for (const std::string &p : entries) {
        SubmitRequest one = req;
        one.partition = p;
        Candidate c;
        score(c, one, first ? scan : ScriptScan::Later);
        if (first) std::copy_n(c.x.begin() + F_script_bytes, kScriptFeatureCount, script.begin());
        else std::copy(script.begin(), script.end(), c.x.begin() + F_script_bytes);
        decide(c);
        if (first || severity(c.d) > severity(best.d) || (severity(c.d) == severity(best.d) && c.s.p_fail > best.s.p_fail))
            best = std::move(c);
        first = false;
    }
}

std::vector<std::string> partitions_to_judge(const PublishedState &st, std::string_view list) {
    std::vector<std::string> out;
    bool unknown_judged = false;
    const HistorySnapshot *history = st.history.get();
    for (std::string_view p : partition_entries(list)) {
        const bool known = st.defaults->partition(p) || (history && history->index.knows_partition(p)) ||
                           st.config.names_partition(p);
        if (!known) {
            if (unknown_judged) continue;
            unknown_judged = true;
        }
        out.emplace_back(p);
    }
    return out;
}

}  // namespace jfp
