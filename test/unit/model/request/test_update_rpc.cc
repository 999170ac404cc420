// One update RPC reaching many job records: what it says is prepared once, and a record judged on the same
// inputs as the last one shares its judgement (model/request/update_rpc.h). The cache must never change an
// outcome, and never serve one descriptor's content for another's at the same address.
#include <time.h>

#include <cmath>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "catch.h"
#include "engine_site.h"
#include "model/telemetry/metrics_file.h"
#include "model/request/update_rpc.h"

namespace test_update_rpc {

using namespace jfp;
using jfp::test::request;
using jfp::test::Site;

namespace {

uint64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// What a caller of job_modify sees of an outcome, compared whole.
std::string seen(const SubmitOutcome &o) {
    char p[64];
    std::snprintf(p, sizeof p, "%a", static_cast<double>(o.decision.p_fail));
    return std::string(o.decision.scored ? "scored " : "unscored ") + p + " action=" + action_name(o.decision.action) +
           " flagged=" + std::to_string(o.decision.flagged) + " class=" + std::to_string(o.decision.top_class) +
           " reject=" + std::to_string(o.reject) + " token=" + o.token.str() + " comment=" +
           (o.new_comment ? "[" + *o.new_comment + "]" : "-") + " admin=[" + o.admin_comment_append + "] message=[" +
           o.user_message + "]";
}

// The strings a random request points into, kept alive by the test.
struct Pool {
    std::vector<std::unique_ptr<std::string>> s;
    std::string_view keep(std::string text) {
        s.push_back(std::make_unique<std::string>(std::move(text)));
        return *s.back();
    }
};

template <class T>
const T &pick(std::mt19937_64 &rng, const std::vector<T> &from) {
    return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
}

bool coin(std::mt19937_64 &rng) { return rng() & 1; }

// An update as scontrol may send it: each field given or not.
SubmitRequest random_update(std::mt19937_64 &rng, Pool &pool) {
    SubmitRequest d;
    d.uid = 4242;
    if (coin(rng)) d.name = pool.keep(pick<std::string>(rng, {"steady_job", "doomed", "sim_007", ""}));
    if (coin(rng)) d.partition = pool.keep(pick<std::string>(rng, {"batch", "long", "batch,long", "nosuch"}));
    if (coin(rng)) d.comment = pool.keep(pick<std::string>(rng, {"mine", "jfp:p=0.001 forged", "", "x"}));
    if (coin(rng)) d.time_limit_min = pick<double>(rng, {5, 30, 600});
    if (coin(rng)) d.mem_mb = pick<double>(rng, {100, 4000});
    if (coin(rng)) d.min_cpus = pick<double>(rng, {1, 8});
    if (coin(rng)) d.dependency = pool.keep(pick<std::string>(rng, {"afterok:1", ""}));
    return d;
}

}  // namespace

TEST_CASE("update RPC: every record's outcome with the RPC's cache equals the one judged without it") {
    Site site;
    // update_budget_ms = 0: every record judged, so that the cached RPC and the fresh one compare on all of them.
    site.config("mode = reject\nthreshold = 0.3\nthreshold.partition.long = 0.0\nmin_history = 0\nreject_below_target = yes\n"
                "update_budget_ms = 0\n");
    Engine e(site.options());
    // Records as slurmctld holds them: their AdminComment (token and facts) from real submissions.
    Pool pool;
    std::vector<std::string> admins;
    for (const char *name : {"steady_job", "doomed", "sim_007"}) {
        SubmitRequest r = request(name);
        admins.push_back(e.evaluate(r).admin_comment_append);
        r.array_inx = "0-99";
        admins.push_back(e.evaluate(r).admin_comment_append);
    }
    std::mt19937_64 rng(test::property_seed());
    int records = 0, judged = 0;
    for (int rpc_n = 0; rpc_n < 60; ++rpc_n) {
        SubmitRequest desc = random_update(rng, pool);
        const int64_t judged_at = naive_local_now();
        UpdateRpc rpc;
        rpc.start(&desc, "77", desc, 1, judged_at, now_ns());
        // A split array: runs of identical records, then one that differs, as an RPC over several jobs has.
        JobRecordView job;
        for (int i = 0; i < 12; ++i) {
            if (i == 0 || rng() % 4 == 0) {
                job = JobRecordView{};
                job.readable = rng() % 6 != 0;
                job.owner_uid = rng() % 5 == 0 ? 4343 : 4242;
                job.job = request(pick<std::string>(rng, {"steady_job", "doomed"}) == "doomed" ? "doomed" : "steady_job",
                                  coin(rng) ? "theirs" : "");
                job.job.script = {};  // slurmctld's record carries no script
                job.job.uid = job.owner_uid;
                if (coin(rng)) job.job.partition = "long";
            }
            job.admin_comment = pick(rng, admins);
            CAPTURE(rpc_n, i, job.readable, job.owner_uid, std::string(job.admin_comment));
            UpdateRpc alone;
            alone.start(&desc, "77", desc, 2, judged_at, now_ns());
            std::string want = seen(e.evaluate_update(alone, &desc, "77", desc, 4242, job));
            std::string got = seen(e.evaluate_update(rpc, &desc, "77", desc, 4242, job));
            CHECK(got == want);
            ++records;
            judged += want.rfind("scored ", 0) == 0;
        }
    }
    CHECK(records == 720);
    CHECK(judged > 100);  // the comparison covered judged records, not only skipped ones
}

TEST_CASE("update RPC: another descriptor's content at the same address is never served from the cache") {
    std::mt19937_64 rng(test::property_seed() + 1);
    Pool pool;
    for (int n = 0; n < 300; ++n) {
        SubmitRequest desc = random_update(rng, pool);
        desc.account = pool.keep("acct");
        UpdateRpc rpc;
        rpc.start(&desc, "77", desc, 1, 0, now_ns());
        // The same content in other memory continues the RPC; the same address with other content does not.
        SubmitRequest copy = desc;
        copy.account = pool.keep("acct");
        CHECK(rpc.continues(&desc, "77", copy, now_ns()));
        SubmitRequest changed = desc;
        switch (n % 9) {
            case 0: changed.uid += 1; break;
            case 1: changed.name = changed.name.data() ? std::string_view() : pool.keep(""); break;  // given vs not
            case 2: changed.account = pool.keep("acct2"); break;
            case 3: changed.time_limit_min = std::isnan(desc.time_limit_min) ? 30 : kUnknown; break;
            case 4: changed.mem_per_cpu = !desc.mem_per_cpu; break;
            case 5: changed.partition = pool.keep(std::string(desc.partition) + "x"); break;
            case 6: changed.comment = pool.keep(std::string(desc.comment) + "jfp:p=0.9"); break;
            case 7: changed.script = pool.keep("#!/bin/sh\n"); break;  // a request with a script is never kept
            case 8: changed.min_cpus = std::isnan(desc.min_cpus) ? 0.0 : -desc.min_cpus - 1; break;
        }
        CAPTURE(n);
        CHECK_FALSE(rpc.continues(&desc, "77", changed, now_ns()));
        CHECK_FALSE(rpc.continues(&copy, "77", copy, now_ns()));  // another address: another RPC
    }
    // Half a second between two records: another RPC, whatever matches.
    SubmitRequest d = request("x");
    d.script = {};
    UpdateRpc rpc;
    rpc.start(&d, "77", d, 1, 0, now_ns() - 2 * UpdateRpc::kGapNs);
    CHECK_FALSE(rpc.continues(&d, "77", d, now_ns()));
    // Another job named by the same content at the same address: another RPC (a loop of scontrol updates, one
    // job each, on a thread slurmctld reuses).
    rpc.start(&d, "77", d, 1, 0, now_ns());
    CHECK(rpc.continues(&d, "77", d, now_ns()));
    CHECK_FALSE(rpc.continues(&d, "78", d, now_ns()));
    CHECK_FALSE(rpc.continues(&d, "77_1", d, now_ns()));
    // A job record the RPC has reached already: the same update sent again.
    CHECK_FALSE(rpc.reached(4711));
    rpc.reach(4711);
    CHECK(rpc.reached(4711));
    CHECK_FALSE(rpc.reached(4712));
    rpc.reach(0);
    CHECK_FALSE(rpc.reached(0));  // a record jfp cannot read is never taken for one already reached
    rpc.start(&d, "77", d, 2, 0, now_ns());
    CHECK_FALSE(rpc.reached(4711));
}

TEST_CASE("update RPC: a descriptor changed in place mid-RPC, or a reload, is judged anew") {
    Site site;
    site.config("mode = reject\nthreshold = 1.0\nthreshold.partition.long = 0.0\nmin_history = 0\nreject_below_target = yes\n");
    Engine e(site.options());
    auto sub = e.evaluate(request("steady_job"));
    JobRecordView job;
    job.readable = true;
    job.owner_uid = 4242;
    job.job = request("steady_job");
    job.job.script = {};
    job.admin_comment = sub.admin_comment_append;
    SubmitRequest desc;
    desc.uid = 4242;
    desc.partition = "batch";
    UpdateRpc rpc;
    CHECK_FALSE(e.evaluate_update(rpc, &desc, "1", desc, 4242, job).reject);  // batch: threshold 1.0
    CHECK_FALSE(e.evaluate_update(rpc, &desc, "2", desc, 4242, job).reject);
    desc.partition = "long";  // the same descriptor, rewritten: threshold 0 there
    CHECK(e.evaluate_update(rpc, &desc, "3", desc, 4242, job).reject);
    desc.partition = "batch";
    CHECK_FALSE(e.evaluate_update(rpc, &desc, "4", desc, 4242, job).reject);
    // jfp.conf changes between two records of one RPC: the next record is judged by the new one.
    site.config("mode = reject\nthreshold = 0.0\nmin_history = 0\nreject_below_target = yes\n");
    struct timespec later[2] = {{0, UTIME_NOW}, {time(nullptr) + 5, 0}};
    utimensat(AT_FDCWD, site.conf.c_str(), later, 0);
    e.poll();
    CHECK(e.evaluate_update(rpc, &desc, "5", desc, 4242, job).reject);
}

TEST_CASE("update RPC: its time is in the metrics per RPC and per record, and its records are counted") {
    Site site;
    std::string prom = site.dir.file("jfp.prom");
    site.config("mode = annotate\nmin_history = 0\nmetrics_file = " + prom + "\n");
    Engine e(site.options());
    auto sub = e.evaluate(request("steady_job"));
    JobRecordView job;
    job.readable = true;
    job.owner_uid = 4242;
    job.job = request("steady_job");
    job.job.script = {};
    job.admin_comment = sub.admin_comment_append;
    SubmitRequest a, b;
    a.uid = b.uid = 4242;
    a.time_limit_min = b.time_limit_min = 20;
    UpdateRpc rpc;
    for (int i = 0; i < 5; ++i) e.evaluate_update(rpc, &a, "1", a, 4242, job);
    for (int i = 0; i < 3; ++i) e.evaluate_update(rpc, &b, "1", b, 4242, job);  // another descriptor: another RPC
    e.end_update_rpc();
    e.write_metrics(true);
    std::ifstream in(prom);
    REQUIRE(in);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(text);
    CHECK(text.find("jfp_update_seconds_count{cluster=\"\"} 2\n") != std::string::npos);
    CHECK(text.find("jfp_update_record_seconds_count{cluster=\"\"} 8\n") != std::string::npos);
    CHECK(text.find("jfp_jobs_total{cluster=\"\",decision=\"updated\"} 8\n") != std::string::npos);
    CHECK(text.find("jfp_submit_seconds_count{cluster=\"\"} 1\n") != std::string::npos);
}

}  // namespace test_update_rpc
