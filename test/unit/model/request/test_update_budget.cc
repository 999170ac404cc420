// One update RPC's records are judged under slurmctld's job write lock; past update_budget_ms of jfp's time
// the RPC's further records are not judged (engine_update.cc). The bound is on time spent, whatever makes a
// record cost: these tests hold the rule itself, record by record, on the RPC's own account of its time.
#include <cstdint>
#include <deque>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "catch.h"
#include "engine_site.h"
#include "model/request/update_rpc.h"

namespace test_update_budget {

using namespace jfp;
using jfp::test::request;
using jfp::test::Site;

namespace {

// Records of jfp-usera's split array as slurmctld holds them, their AdminComment from a real submission; the
// strings they view live here.
struct Records {
    std::deque<std::string> text;
    std::vector<JobRecordView> jobs;
    void add(Engine &e, const std::string &name, const std::string &comment, uint32_t owner = 4242, uint32_t id = 0) {
        const std::string &n = text.emplace_back(name);
        const std::string &c = text.emplace_back(comment);
        JobRecordView job;
        job.readable = true;
        job.job_id = id;
        job.owner_uid = owner;
        job.job = request(n.c_str(), c.c_str());
        job.job.script = {};
        job.job.uid = owner;
        job.admin_comment = text.emplace_back(e.evaluate(request(n.c_str())).admin_comment_append);
        jobs.push_back(job);
    }
};

}  // namespace

TEST_CASE("update budget: past it the RPC's further records are not judged, keep what they had, and are counted") {
    Site site;
    const std::string prom = site.dir.file("jfp.prom");
    // A microsecond: the first record is judged (nothing spent yet), and its judgement spends more than that.
    site.config("mode = annotate\nmin_history = 0\nupdate_budget_ms = 0.001\nmetrics_file = " + prom + "\n");
    Engine e(site.options());
    Records r;
    for (int i = 0; i < 40; ++i) r.add(e, "steady_job", "task " + std::to_string(i));
    const std::vector<JobRecordView> &jobs = r.jobs;
    SubmitRequest desc;
    desc.uid = 4242;
    desc.time_limit_min = 20;
    UpdateRpc rpc;
    const SubmitOutcome first = e.evaluate_update(rpc, &desc, "77", desc, 4242, jobs[0]);
    CHECK(first.decision.scored);
    REQUIRE(first.new_comment);  // annotated: the record's comment with jfp's words
    for (size_t i = 1; i < jobs.size(); ++i) {
        const SubmitOutcome out = e.evaluate_update(rpc, &desc, "77", desc, 4242, jobs[i]);
        CAPTURE(i);
        CHECK_FALSE(out.decision.scored);
        CHECK_FALSE(out.new_comment);  // the record keeps its comment
        CHECK_FALSE(out.reject);
        CHECK(out.user_message.empty());
    }
    CHECK(e.counters().get(Counter::Updated) == 1);
    CHECK(e.counters().get(Counter::UpdateUnjudged) == 39);

    // A forged marker in the update's own comment is still taken out past the budget: that is per RPC, not
    // per record, and costs nothing more.
    SubmitRequest forged;
    forged.uid = 4242;
    forged.comment = "mine jfp:p=0.001";
    UpdateRpc rpc2;
    const SubmitOutcome judged = e.evaluate_update(rpc2, &forged, "78", forged, 4242, jobs[0]);
    const SubmitOutcome past = e.evaluate_update(rpc2, &forged, "78", forged, 4242, jobs[1]);
    CHECK(judged.decision.scored);
    CHECK_FALSE(past.decision.scored);
    REQUIRE(past.new_comment);
    CHECK(past.new_comment->find("jfp:p=0.001") == std::string::npos);
    CHECK(past.new_comment->find("mine") != std::string::npos);

    // Another RPC starts with the whole budget.
    SubmitRequest other;
    other.uid = 4242;
    other.time_limit_min = 30;
    UpdateRpc rpc3;
    CHECK(e.evaluate_update(rpc3, &other, "79_0", other, 4242, jobs[2]).decision.scored);

    e.end_update_rpc();
    e.write_metrics(true);
    std::ifstream in(prom);
    REQUIRE(in);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(text);
    CHECK(text.find("jfp_jobs_total{cluster=\"\",decision=\"update_unjudged\"} 40\n") != std::string::npos);
    CHECK(text.find("jfp_jobs_total{cluster=\"\",decision=\"updated\"} 3\n") != std::string::npos);
    // Every record's time is still in the update histograms: 40 + 2 + 1 records, 3 RPCs.
    CHECK(text.find("jfp_update_record_seconds_count{cluster=\"\"} 43\n") != std::string::npos);
    CHECK(text.find("jfp_update_seconds_count{cluster=\"\"} 3\n") != std::string::npos);
}

TEST_CASE("update budget 0: every record of an RPC is judged, however long the RPC") {
    Site site;
    site.config("mode = annotate\nmin_history = 0\nupdate_budget_ms = 0\n");
    Engine e(site.options());
    Records r;
    for (int i = 0; i < 300; ++i) r.add(e, i % 2 ? "steady_job" : "sim_007", "task " + std::to_string(i));
    const std::vector<JobRecordView> &jobs = r.jobs;
    SubmitRequest desc;
    desc.uid = 4242;
    desc.time_limit_min = 20;
    UpdateRpc rpc;
    for (size_t i = 0; i < jobs.size(); ++i) CHECK(e.evaluate_update(rpc, &desc, "77", desc, 4242, jobs[i]).decision.scored);
    CHECK(e.counters().get(Counter::Updated) == 300);
    CHECK(e.counters().get(Counter::UpdateUnjudged) == 0);
}

// The rule, record by record, over random RPCs: a record is left unjudged exactly when the RPC's records
// before it have spent the budget; the judged ones are the RPC's first; whatever the records are (identical,
// each with its own comment or name, another user's), so the RPC's time past its budget is at most its last
// judged record's.
TEST_CASE("update budget: a record is judged exactly when its RPC's time so far is under the budget (random RPCs)") {
    std::mt19937_64 rng(test::property_seed());
    const double budgets[] = {0, 0.001, 0.01, 0.03, 0.1, 1000};
    Site site;
    int unjudged_seen = 0, judged_seen = 0;
    for (double budget : budgets) {
        site.config("mode = annotate\nmin_history = 0\nupdate_budget_ms = " + std::to_string(budget) + "\n");
        Engine e(site.options());
        Records r;
        const char *names[] = {"steady_job", "sim_007", "doomed", "\xEF\xB7\xBA\xEF\xB7\xBA job"};
        for (int i = 0; i < 24; ++i)  // one in eight another user's job: slurmctld's to refuse
            r.add(e, names[rng() % 4], rng() % 2 ? "task " + std::to_string(i) : "same", rng() % 8 == 0 ? 4343 : 4242);
        const std::vector<JobRecordView> &pool = r.jobs;
        for (int n = 0; n < 12; ++n) {
            SubmitRequest desc;
            desc.uid = 4242;
            desc.time_limit_min = 10 + n;
            UpdateRpc rpc;
            const int records = 1 + static_cast<int>(rng() % 60);
            bool past = false;
            for (int i = 0; i < records; ++i) {
                const JobRecordView &job = pool[rng() % pool.size()];
                const uint64_t spent = rpc.spent_ns();
                const uint64_t unjudged0 = e.counters().get(Counter::UpdateUnjudged);
                const uint64_t updated0 = e.counters().get(Counter::Updated);
                (void)e.evaluate_update(rpc, &desc, "77", desc, 4242, job);
                const bool left = e.counters().get(Counter::UpdateUnjudged) == unjudged0 + 1;
                const bool want_left = budget > 0 && static_cast<double>(spent) >= budget * 1e6;
                CAPTURE(budget, n, i, spent, job.owner_uid);
                CHECK(left == want_left);
                if (left) {
                    ++unjudged_seen;
                    past = true;
                } else {
                    CHECK_FALSE(past);  // once past the budget, no later record of the RPC is judged
                    if (job.owner_uid == 4242) {
                        CHECK(e.counters().get(Counter::Updated) == updated0 + 1);
                        ++judged_seen;
                    }
                }
            }
        }
    }
    // Both sides of the rule were reached.
    CHECK(unjudged_seen > 50);
    CHECK(judged_seen > 50);
}

// RPCs are told apart by what only a new one can bring: its descriptor's job id, or a job record reached again.
// An update sent again with the same content, its descriptor at the same address within half a second (a
// thread slurmctld reuses), is judged on a budget of its own, not on what is left of the one before.
TEST_CASE("update budget: an update sent again is another RPC, with a budget of its own") {
    Site site;
    site.config("mode = annotate\nmin_history = 0\nupdate_budget_ms = 0.001\n");
    Engine e(site.options());
    Records r;
    for (uint32_t i = 0; i < 6; ++i) r.add(e, "steady_job", "task " + std::to_string(i), 4242, 900 + i);
    SubmitRequest desc;
    desc.uid = 4242;
    desc.time_limit_min = 20;
    UpdateRpc rpc;
    // One RPC over records 900-902: the first judged, the budget of a microsecond spent.
    CHECK(e.evaluate_update(rpc, &desc, "900", desc, 4242, r.jobs[0]).decision.scored);
    CHECK_FALSE(e.evaluate_update(rpc, &desc, "900", desc, 4242, r.jobs[1]).decision.scored);
    CHECK_FALSE(e.evaluate_update(rpc, &desc, "900", desc, 4242, r.jobs[2]).decision.scored);
    // The same update again, reaching record 900 again: a new RPC.
    CHECK(e.evaluate_update(rpc, &desc, "900", desc, 4242, r.jobs[0]).decision.scored);
    CHECK_FALSE(e.evaluate_update(rpc, &desc, "900", desc, 4242, r.jobs[1]).decision.scored);
    // The same content for another job: a new RPC.
    CHECK(e.evaluate_update(rpc, &desc, "904", desc, 4242, r.jobs[4]).decision.scored);
    CHECK(e.evaluate_update(rpc, &desc, "905", desc, 4242, r.jobs[5]).decision.scored);
    CHECK(e.counters().get(Counter::Updated) == 4);
    CHECK(e.counters().get(Counter::UpdateUnjudged) == 3);
}

}  // namespace test_update_budget
