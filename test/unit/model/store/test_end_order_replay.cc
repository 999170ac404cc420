// The snapshot's full load reads the ended jobs in rowid order and puts them back in replay order itself:
// whatever order the rows stand in (jobs that ran long, late exports, re-ingests, step verdicts), it must
// give the jobs exactly as SQLite's ORDER BY end_time, end_seq does, with the same fields; and so must its
// fallback, when the rows stand too far out of order for its ring.
#include <cmath>
#include <string>
#include <vector>

#include "catch.h"
#include "history_workload.h"
#include "model/store/end_order_replay.h"
#include "model/store/history_store.h"
#include "model/store/store_schema.h"
#include "test_support.h"

namespace test_end_order_replay {

using namespace jfp;
using jfp::test::TempDir;
using jfp::test::Workload;
using jfp::test::put;

namespace {

// The fields HistoryIndex::add reads, as one line to compare and print.
std::string index_fields(const JobRecord &j) {
    std::string s = j.user + "|" + j.name + "|" + j.partition + "|" + j.account + "|" + j.array_job + "|" +
                    std::to_string(j.end) + "|" + std::to_string(static_cast<int>(j.outcome)) + "|" +
                    std::to_string(j.script_fingerprint);
    for (double d : {j.req_cpus, j.req_mem_mb, j.timelimit_min, j.elapsed_s, j.max_rss_mb})
        s += "|" + (std::isnan(d) ? std::string("nan") : std::to_string(d));
    return s;
}

std::vector<std::string> sorted_by_sqlite(const HistoryStore &store) {
    std::vector<std::string> out;
    auto c = store.ended_jobs_for_index();
    JobRecord j;
    while (c.next(j)) out.push_back(index_fields(j));
    return out;
}

// The load's ended jobs and (into subs) its submissions; the two callbacks may run on two threads.
std::vector<std::string> loaded(const HistoryStore &store, size_t max_window, bool two_threads,
                                std::vector<std::string> &subs) {
    std::vector<std::string> out;
    HistoryStore::LoadOptions opts;
    opts.max_window = max_window;
    opts.second_thread = two_threads;
    subs.clear();
    store.load_jobs(
        [&](const HistoryStore::Submission &s) {
            subs.push_back(std::string(s.job_key) + "|" + std::string(s.user) + "|" + std::to_string(s.uid) + "|" +
                           std::string(s.account) + "|" + std::string(s.qos) + "|" + std::to_string(s.submit));
        },
        [&](const JobRecord &j) { out.push_back(index_fields(j)); }, opts);
    return out;
}

// A store whose rows stand far from end order: long runners ended many ingests later, late exports,
// re-ingests with another outcome, step rows with the OOM verdict, array tasks, fingerprints.
void fill_out_of_order(HistoryStore &store, Workload &w, int rounds) {
    for (int round = 0; round < rounds; ++round) {
        std::vector<JobRecord> batch;
        std::vector<StepInfo> steps;
        int action = w.pick(5);
        if (action <= 1) {
            for (int i = 0, n = 1 + w.pick(12); i < n; ++i) {
                w.clock += w.pick(3);  // many jobs end in the same second
                JobRecord &j = w.arrive(batch, 3);
                if (w.pick(3) == 0) j.array_job = "a" + std::to_string(w.pick(4));
                if (w.pick(2)) j.script_fingerprint = 1 + static_cast<uint64_t>(w.pick(5));
                if (w.pick(6) == 0) steps.push_back(StepInfo{j.cluster, j.job_key, 4000.0, true});
            }
        } else if (action == 2) {  // long runners end, some long after
            while (!w.running.empty() && batch.size() < 4) {
                size_t at = static_cast<size_t>(w.pick(static_cast<int>(w.running.size())));
                w.end_running(at, w.clock + w.pick(5), batch);
            }
        } else if (action == 3) {  // a late export: ended before jobs already stored
            w.late(batch, 9000, w.clock, 3000);
        } else if (!w.ended.empty()) {  // re-ingested with another outcome (and, killed, more memory)
            JobRecord &j = w.flip();
            j.exit_signal = w.pick(2) ? 9 : 0;
            j.max_rss_mb = j.req_mem_mb;
            batch.push_back(j);
        }
        put(store, batch, steps);
    }
}

}  // namespace

TEST_CASE("end order replay: places by end then end_seq, ties in rowid order; the ring as wide as rows wait") {
    ReplayOrder o = replay_order({{30, 3}, {10, 1}, {20, 2}, {20, 1}, {40, 9}});
    CHECK(o.rank == std::vector<uint32_t>{3, 0, 2, 1, 4});
    CHECK(o.window == 4);  // {30,3} waits while places 0..2 are read
    CHECK(replay_order({{1, 1}, {2, 2}, {3, 3}}).window == 1);
    CHECK(replay_order({{3, 3}, {2, 2}, {1, 1}}).window == 3);
    CHECK(replay_order({{5, 1}, {5, 1}, {4, 1}}).rank == std::vector<uint32_t>{1, 2, 0});
    CHECK(replay_order({}).window == 0);
}

TEST_CASE("end order replay: the snapshot's load gives the ended jobs as SQLite's sort does, ring or fallback") {
    for (uint64_t seed : {61u, 62u, 63u, 64u, 65u}) {
        TempDir dir;
        HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
        Workload w(seed);
        fill_out_of_order(store, w, 80);
        const std::vector<std::string> want = sorted_by_sqlite(store);
        REQUIRE(want.size() > 100);
        INFO("seed " << seed);
        std::vector<std::string> subs_first, subs;
        const size_t ring = HistoryStore::LoadOptions().max_window;
        CHECK(loaded(store, ring, false, subs_first) == want);
        CHECK(subs_first.size() == store.job_count());
        CHECK(loaded(store, ring, true, subs) == want);
        CHECK(subs == subs_first);
        CHECK(loaded(store, 0, false, subs) == want);  // every window is too wide: SQLite sorts
        CHECK(subs == subs_first);
        CHECK(loaded(store, 0, true, subs) == want);
        CHECK(subs == subs_first);

        // The ring exactly as wide as the order says, and the reorder without the store's own scan.
        Db db(dir.file("h.db"), SQLITE_OPEN_READONLY);
        Stmt k(db, ("SELECT end_time, end_seq FROM jobs WHERE user IS NOT NULL AND " + ended_sql() + " ORDER BY rowid").c_str());
        std::vector<EndKey> keys;
        while (k.step()) keys.push_back(EndKey{k.int_at(0), k.int_at(1)});
        ReplayOrder order = replay_order(keys);
        CHECK(order.window > 1);  // the workload does put rows out of order
        std::vector<std::string> got;
        replay_ended_rows(db, true, order, [&](const JobRecord &j) { got.push_back(index_fields(j)); });
        CHECK(got == want);
        // An order of other rows is refused, not followed out of bounds.
        order.rank.pop_back();
        CHECK_THROWS_WITH(replay_ended_rows(db, true, order, [](const JobRecord &) {}),
                          HasText("changed between the two reads"));
    }
}

TEST_CASE("end order replay: a commit the caller's view has not seen leaves the submissions to the caller's connection") {
    TempDir dir;
    HistoryStore writer(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    HistoryStore reader(dir.file("h.db"), HistoryStore::Access::ReadOnly);
    const size_t ring = HistoryStore::LoadOptions().max_window;
    Workload w(71);
    fill_out_of_order(writer, w, 30);
    std::vector<std::string> want, want_subs, subs;
    {
        HistoryStore::ReadTransaction tx(reader);
        const uint64_t before = reader.job_count();  // the view is taken at the first read
        want = loaded(reader, ring, false, want_subs);
        fill_out_of_order(writer, w, 10);  // committed beside the open view
        REQUIRE(writer.job_count() > before);
        CHECK(loaded(reader, ring, true, subs) == want);
        CHECK(subs == want_subs);  // the rows of the caller's view, not the newer ones
        CHECK(subs.size() == before);
    }
    CHECK(loaded(reader, ring, true, subs) != want);  // a new view sees them
    CHECK(subs.size() == writer.job_count());
}

}  // namespace test_end_order_replay
