// Issue 48, class 9 (see test_redteam48.cc): attacks that need the whole Engine. [.redteam] cases succeed on
// the code they were written against and are hidden; untagged ones are defences that held.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "catch.h"
#include "engine_site.h"
#include "model/history/name_identity.h"
#include "model/request/request_caps.h"
#include "model/request/update_rpc.h"
#include "model/util/log.h"

namespace test_redteam48_engine {

using namespace jfp;
using jfp::test::request;
using jfp::test::Site;

namespace {

using Clock = std::chrono::steady_clock;

void quiet(LogLevel, const char *) {}

// One update RPC over `records` records of one array whose tasks the owner split into records that each
// differ in what the judgement reads (here: the user's own comment, set task by task beforehand). Returns
// the RPC's time in ms, the least of `runs`.
double update_rpc_ms(Engine &e, const std::string &admin, int records, bool distinct, int runs = 3,
                     const std::string &name = "steady_job") {
    std::vector<std::string> comments;
    for (int i = 0; i < records; ++i) comments.push_back(distinct ? "task note " + std::to_string(i) : "task note");
    std::vector<JobRecordView> jobs(static_cast<size_t>(records));
    for (int i = 0; i < records; ++i) {
        JobRecordView &job = jobs[static_cast<size_t>(i)];
        job.readable = true;
        job.owner_uid = 4242;
        job.job = request("steady_job");
        job.job.name = name;
        job.job.script = {};
        job.job.uid = 4242;
        job.job.comment = comments[static_cast<size_t>(i)];
        job.admin_comment = admin;
    }
    double best = 1e18;
    for (int run = 0; run < runs; ++run) {
        SubmitRequest desc;
        desc.uid = 4242;
        desc.time_limit_min = 10 + run;  // scontrol update JobId=<array> TimeLimit=...
        UpdateRpc rpc;
        const auto t0 = Clock::now();
        for (int i = 0; i < records; ++i) (void)e.evaluate_update(rpc, &desc, "77", desc, 4242, jobs[static_cast<size_t>(i)]);
        best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    return best;
}

}  // namespace

// Found by the red team: an owner who first gives each task of a 1,000-task array its own comment makes every
// record of the next array-wide update different, so each is judged in full; named with U+FDFA, each record
// paid the name's identity through ICU again (171 ms an RPC). Now the identity is computed once per name
// (Engine's NameIdentityCache) and the whole RPC stays within 5 ms.
TEST_CASE("redteam48 class 4: 1,000 records that differ in their comment cost each a full judgement") {
    set_log_sink(quiet);
    struct Restore { ~Restore() { set_log_sink(nullptr); } } restore;
    Site site;
    // Every record judged: what each costs is measured here (update_budget_ms bounds an RPC: test_update_budget.cc).
    site.config("mode = annotate\nmin_history = 0\nupdate_budget_ms = 0\n");
    Engine e(site.options());
    SubmitRequest r = request("steady_job");
    r.array_inx = "0-999";
    const std::string admin = e.evaluate(r).admin_comment_append;
    // The same records, named (task by task, before) with 85 x U+FDFA: each record's name identity went
    // through ICU again. Measured in turns, the least of five each: the legs' load moves both alike.
    std::string fdfa;
    while (fdfa.size() + 3 <= kNameIdentityBytes) fdfa += "\xEF\xB7\xBA";
    double same = 1e18, distinct = 1e18, heavy = 1e18, heavy_same = 1e18;
    for (int turn = 0; turn < 5; ++turn) {
        same = std::min(same, update_rpc_ms(e, admin, 1000, false, 1));
        distinct = std::min(distinct, update_rpc_ms(e, admin, 1000, true, 1));
        heavy = std::min(heavy, update_rpc_ms(e, admin, 1000, true, 1, fdfa));
        heavy_same = std::min(heavy_same, update_rpc_ms(e, admin, 1000, false, 1, fdfa));
    }
    WARN("one update RPC over 1,000 records: identical records " << same << " ms; each with its own comment " << distinct
         << " ms; named with U+FDFA, each with its own comment " << heavy << " ms (identical: " << heavy_same << " ms)");
    // The bound is 5 ms (held on a real slurmctld by update_rpc_cost.sh). Here, where the legs run side
    // by side on two cores, against the same records named in ASCII in the same run: measured 1.0-1.4 times
    // them on the host (3-4.5 ms), 4.9 once in the 24.11 leg's load from single runs; what this guards
    // against cost 50 times them (171 ms).
    CHECK(heavy <= 8 * distinct);
}

// Work cap (class 3): a name of 85 x U+FDFA (18 characters each under NFKC) is the slowest name identity
// found (about 0.2 ms at -O1); the worst-case search draws names of ASCII and 'é' only. The whole submission
// with it stays under 1 ms here.
TEST_CASE("redteam48 class 3: a job name that expands most under NFKC stays within the 1 ms bound") {
    set_log_sink(quiet);
    struct Restore { ~Restore() { set_log_sink(nullptr); } } restore;
    Site site;
    site.config("mode = warn\nthreshold = 0.01\n");
    Engine e(site.options());
    std::string name;
    while (name.size() + 3 <= 1024) name += "\xEF\xB7\xBA";  // Slurm's 1,024 bytes; identity reads 256
    std::string comment = name;
    auto time_us = [&](const std::string &n) {
        SubmitRequest r = request("x");
        r.name = n;
        r.comment = comment;
        double best = 1e18;
        for (int i = 0; i < 15; ++i) {
            const auto t0 = Clock::now();
            (void)e.evaluate(r);
            best = std::min(best, std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        }
        return best;
    };
    const double ascii = time_us(std::string(1023, 'a'));
    const double fdfa = time_us(name);
    WARN("Engine::evaluate: 1 KiB ASCII name " << ascii << " us; 1 KiB of U+FDFA " << fdfa << " us");
#if !defined(__SANITIZE_ADDRESS__)
    CHECK(fdfa < 1000.0);  // sanitizer time is not jfp's (test_submit_worst_case.cc skips its bound too)
#endif
}

// Found by the red team: every distinct entry of a partition list (up to 512 in 1 KiB) was scored before jfp
// knew whether it was a partition at all, and with a name of 85 x U+FDFA each lookup paid the name's identity
// through ICU (61 ms in slurmctld). Now whether an entry is known is decided first, and the identity once.
TEST_CASE("redteam48 class 3: a partition list of hundreds of distinct entries") {
    set_log_sink(quiet);
    struct Restore { ~Restore() { set_log_sink(nullptr); } } restore;
    Site site;
    site.config("mode = warn\nthreshold = 0.01\n");
    Engine e(site.options());
    std::string list;
    for (int c = 0x21; c < 0x7f && list.size() + 2 <= 1024; ++c)
        if (c != ',') list += std::string(list.empty() ? "" : ",") + static_cast<char>(c);
    for (int a = 0x41; a < 0x7b; ++a)
        for (int b = 0x41; b < 0x7b && list.size() + 3 <= 1024; ++b) list += std::string(",") + static_cast<char>(a) + static_cast<char>(b);
    std::string fdfa;
    while (fdfa.size() + 3 <= 255) fdfa += "\xEF\xB7\xBA";
    auto time_us = [&](const std::string &name, const std::string &partition) {
        SubmitRequest r = request("x");
        r.name = name;
        r.partition = partition;
        double best = 1e18;
        for (int i = 0; i < 5; ++i) {
            const auto t0 = Clock::now();
            (void)e.evaluate(r);
            best = std::min(best, std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        }
        return best;
    };
    const double one = time_us("sim", "batch"), ascii = time_us("sim", list), heavy = time_us(fdfa, list);
    WARN("Engine::evaluate: one partition " << one << " us; " << partition_entries(list).size()
         << " distinct entries in " << list.size() << " bytes: " << ascii << " us; the same with 85 x U+FDFA as the name: "
         << heavy << " us");
#if !defined(__SANITIZE_ADDRESS__)
    CHECK(ascii < 1000.0);
    CHECK(heavy < 1000.0);
#endif
}

// Found by the red team, the two above together: an update that sets the 1 KiB partition list and the U+FDFA
// name on an array split into records that differ (each with its own comment) paid the whole list for every
// record (60 ms a record). Now the list's entries to judge are found once per RPC (UpdateRpc::partitions).
TEST_CASE("redteam48 class 4: an update RPC that sets a long partition list pays it per record") {
    set_log_sink(quiet);
    struct Restore { ~Restore() { set_log_sink(nullptr); } } restore;
    Site site;
    // Every record judged: what each costs is measured here (update_budget_ms bounds an RPC: test_update_budget.cc).
    site.config("mode = annotate\nmin_history = 0\nupdate_budget_ms = 0\n");
    Engine e(site.options());
    SubmitRequest sub = request("steady_job");
    sub.array_inx = "0-999";
    const std::string admin = e.evaluate(sub).admin_comment_append;
    std::string list;
    for (int a = 0x41; a < 0x7b; ++a)
        for (int b = 0x41; b < 0x7b && list.size() + 3 <= 1024; ++b) list += std::string(list.empty() ? "" : ",") + static_cast<char>(a) + static_cast<char>(b);
    std::string fdfa;
    while (fdfa.size() + 3 <= 255) fdfa += "\xEF\xB7\xBA";
    const int records = 1000;
    std::vector<std::string> comments;
    std::vector<JobRecordView> jobs(records);
    for (int i = 0; i < records; ++i) comments.push_back("task note " + std::to_string(i));
    for (int i = 0; i < records; ++i) {
        JobRecordView &job = jobs[static_cast<size_t>(i)];
        job.readable = true;
        job.owner_uid = 4242;
        job.job = request("steady_job");
        job.job.script = {};
        job.job.uid = 4242;
        job.job.comment = comments[static_cast<size_t>(i)];
        job.admin_comment = admin;
    }
    SubmitRequest desc;
    desc.uid = 4242;
    desc.name = fdfa;
    desc.partition = list;
    auto rpc_ms = [&](SubmitRequest &d, int run) {
        UpdateRpc rpc;
        d.time_limit_min = 10 + run;
        const auto t0 = Clock::now();
        for (int i = 0; i < records; ++i) (void)e.evaluate_update(rpc, &d, "77", d, 4242, jobs[static_cast<size_t>(i)]);
        return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    };
    SubmitRequest plain;  // the same records, an update of the time limit alone: the reference
    plain.uid = 4242;
    double ms = 1e18, plain_ms = 1e18;
    for (int turn = 0; turn < 5; ++turn) {  // in turns, the least of five each
        ms = std::min(ms, rpc_ms(desc, turn));
        plain_ms = std::min(plain_ms, rpc_ms(plain, turn));
    }
    WARN("one update RPC over " << records << " records, partition list of " << partition_entries(list).size()
         << " entries and a U+FDFA name: " << ms << " ms; the time limit alone: " << plain_ms << " ms");
    // As above, a ratio in the same run: measured 1.4 on the host, 3.1 once in the 24.11 leg's load; what this
    // guards against was 60 ms a record (24,000 times).
    CHECK(ms <= 8 * plain_ms);
}

}  // namespace test_redteam48_engine
