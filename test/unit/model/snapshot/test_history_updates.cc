// The plugin keeps its history current by applying only what the store changed. Whatever sequence of
// ingests happens (jobs in end order, jobs still running that end later, identical re-ingests, late
// exports, re-ingests that change an outcome, step rows, queue tokens), the updated snapshot must equal
// a full replay of the store; when it cannot, the update must say so and leave the snapshot alone.
#include <random>

#include "catch.h"
#include "model/snapshot/history_snapshot.h"
#include "model/store/history_store.h"
#include "history_workload.h"
#include "test_support.h"

namespace test_history_updates {

using namespace jfp;
using jfp::test::TempDir;
using jfp::test::Workload;
using jfp::test::put;

namespace {

// Chunks of 3 jobs: most updates take several.
SnapshotUpdate update(HistorySnapshot &snap, const HistoryStore &store) {
    return update_history_snapshot(snap, store, [](const std::function<void()> &write) { write(); }, 3);
}

}  // namespace

TEST_CASE("history updates: applying only the store's changes equals a full replay, after any ingests") {
    for (uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
        TempDir dir;
        HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
        Workload w(seed);
        HistorySnapshot snap = load_history_snapshot(store);
        int incremental = 0, full = 0;
        for (int round = 0; round < 60; ++round) {
            int action = w.pick(8);
            bool must_be_incremental = action <= 3;
            std::vector<JobRecord> batch;
            std::vector<StepInfo> steps;
            if (action == 0 || action == 1) {  // new jobs, ended in end order (some in the same second), some still running
                int n = 1 + w.pick(12);
                for (int i = 0; i < n; ++i) {
                    w.clock += w.pick(3);
                    JobRecord j = w.submit();
                    if (w.pick(4) == 0) {
                        w.running.push_back(j);
                    } else {
                        w.finish(j, w.clock);
                        w.ended.push_back(j);
                        if (w.pick(3) == 0) steps.push_back({j.cluster, j.job_key, 100.0 * (1 + w.pick(60)), w.pick(5) == 0});
                    }
                    batch.push_back(j);
                }
            } else if (action == 2) {  // running jobs end now
                for (size_t i = 0; i < w.running.size() && i < 4; ++i) {
                    w.clock += w.pick(2);
                    JobRecord j = w.running.back();
                    w.running.pop_back();
                    w.finish(j, w.clock);
                    w.ended.push_back(j);
                    batch.push_back(j);
                }
            } else if (action == 3) {  // an overlapping export: rows already stored, unchanged
                for (int i = 0; i < 5 && !w.ended.empty(); ++i) batch.push_back(w.ended[static_cast<size_t>(w.pick(static_cast<int>(w.ended.size())))]);
                for (const auto &j : w.running) batch.push_back(j);
            } else if (action == 4 || action == 5) {  // a late export: a job that ended before the latest loaded
                if (snap.latest_end == 0) continue;
                JobRecord j = w.submit();
                j.submit -= 7200;
                w.finish(j, snap.latest_end - 1 - w.pick(600));
                w.ended.push_back(j);
                batch.push_back(j);
            } else if (action == 6) {  // a stored job re-ingested with another outcome
                if (w.ended.empty()) continue;
                JobRecord &j = w.ended[static_cast<size_t>(w.pick(static_cast<int>(w.ended.size())))];
                j.outcome = j.outcome == Outcome::Completed ? Outcome::Failed : Outcome::Completed;
                j.state = j.outcome == Outcome::Completed ? "COMPLETED" : "FAILED";
                batch.push_back(j);
            } else {  // the queue as scontrol saw it
                std::vector<std::pair<std::string, std::string>> q;
                for (const auto &j : w.running)
                    if (w.pick(2)) q.emplace_back(j.job_id, "q" + j.job_key);
                store.replace_queue_tokens(q);
                must_be_incremental = true;
            }
            if (!batch.empty() || !steps.empty()) put(store, batch, steps);

            auto u = update(snap, store);
            if (u.full_load_reason) {
                ++full;
                CHECK_FALSE(must_be_incremental);
                snap = load_history_snapshot(store);
            } else {
                ++incremental;
            }
            HistorySnapshot replay = load_history_snapshot(store);
            std::string why;
            INFO("seed " << seed << " round " << round << " action " << action);
            REQUIRE(same_history(snap, replay, &why));
            CHECK(why.empty());
        }
        CHECK(incremental > 20);
        CHECK(full > 0);
    }
}

TEST_CASE("history updates: the index grows outside the lock; under it a grown table is only swapped in") {
    TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    Workload w(13);
    put(store, w.ended_series(10));
    HistorySnapshot snap = load_history_snapshot(store);
    put(store, w.ended_series(400));  // hundreds of new keys: the table must grow several times
    size_t swaps = 0, adding = 0, slots_at_start = snap.index.slot_count();
    auto u = update_history_snapshot(snap, store, [&](const std::function<void()> &write) {
        size_t slots = snap.index.slot_count();
        uint64_t jobs = snap.index.jobs_added();
        write();  // what runs under the plugin's history lock
        bool grew = snap.index.slot_count() != slots, added = snap.index.jobs_added() != jobs;
        CHECK_FALSE((grew && added));  // a rehash under the lock, beside the adds, is what this prevents
        swaps += grew;
        adding += added;
    }, 3);
    REQUIRE_FALSE(u.full_load_reason);
    CHECK(u.applied == 400);
    CHECK(swaps >= 3);
    CHECK(adding > 100);
    CHECK(snap.index.slot_count() > slots_at_start);
    REQUIRE(same_history(snap, load_history_snapshot(store)));
}

TEST_CASE("history updates: an identical re-ingest changes nothing; a late job or a changed outcome needs a full load, and says why") {
    TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    Workload w(9);
    std::vector<JobRecord> jobs = w.ended_series(10);
    put(store, jobs);
    HistorySnapshot snap = load_history_snapshot(store);
    int64_t seq = snap.seq;
    CHECK(seq > 0);

    put(store, jobs);  // the same export again
    CHECK(store.last_change() == seq);
    auto u = update(snap, store);
    CHECK_FALSE(u.full_load_reason);
    CHECK(u.applied == 0);
    CHECK_FALSE(u.queue_tokens);  // nothing to log

    // An ingest that only saw queued jobs: no job applied, their tokens are (the plugin logs the count).
    store.replace_queue_tokens({{"501", "0123456789abcdef"}, {"502", "fedcba9876543210"}});
    u = update(snap, store);
    CHECK(u.applied == 0);
    REQUIRE(u.queue_tokens);
    CHECK(*u.queue_tokens == 2);
    REQUIRE(snap.queue_token_by_job.count("502"));
    u = update(snap, store);  // the same tokens again
    CHECK_FALSE(u.queue_tokens);

    JobRecord late = w.submit();
    w.finish(late, jobs.front().end - 5);
    put(store, {late});
    u = update(snap, store);
    REQUIRE(u.full_load_reason);
    CHECK(u.full_load_reason->find("ended before the latest job already loaded") != std::string::npos);
    CHECK(snap.seq == seq);  // untouched
    snap = load_history_snapshot(store);

    JobRecord changed = jobs[3];
    changed.outcome = Outcome::Failed;
    changed.state = "FAILED";
    put(store, {changed});
    u = update(snap, store);
    REQUIRE(u.full_load_reason);
    CHECK(u.full_load_reason->find("re-ingested with changes") != std::string::npos);
}

TEST_CASE("history updates: a schema-1 store is read with full loads, and upgraded by the next ingest") {
    TempDir dir;
    std::string path = dir.file("h.db");
    Workload w(11);
    std::vector<JobRecord> jobs = w.ended_series(6);
    {
        HistoryStore store(path, HistoryStore::Access::ReadWrite);
        put(store, jobs);
    }
    {  // make it what jfp 0.1 wrote
        Db db(path, SQLITE_OPEN_READWRITE);
        db.exec("DROP INDEX jobs_seq");
        db.exec("ALTER TABLE jobs DROP COLUMN seq");
        db.exec("ALTER TABLE jobs DROP COLUMN job_seq");
        db.exec("ALTER TABLE jobs DROP COLUMN end_seq");
        db.exec("PRAGMA user_version=1");
    }
    HistorySnapshot old_snap;
    {
        HistoryStore ro(path, HistoryStore::Access::ReadOnly);
        CHECK_FALSE(ro.tracks_changes());
        old_snap = load_history_snapshot(ro);
        CHECK(old_snap.seq == -1);
        CHECK(old_snap.jobs == 6);
        auto u = update(old_snap, ro);
        REQUIRE(u.full_load_reason);
        CHECK(u.full_load_reason->find("schema") != std::string::npos);
    }
    {
        HistoryStore rw(path, HistoryStore::Access::ReadWrite);  // upgrades
        CHECK(rw.tracks_changes());
        CHECK(rw.last_change() > 0);
    }
    HistoryStore ro(path, HistoryStore::Access::ReadOnly);
    CHECK(ro.tracks_changes());
    HistorySnapshot snap = load_history_snapshot(ro);
    CHECK(same_history(snap, old_snap));
    {
        HistoryStore rw(path, HistoryStore::Access::ReadWrite);
        put(rw, w.ended_series(1));
    }
    auto u = update(snap, ro);
    CHECK_FALSE(u.full_load_reason);
    CHECK(u.applied == 1);
    CHECK(same_history(snap, load_history_snapshot(ro)));
}

TEST_CASE("history updates: a prune is never applied in place; after the whole load, ingests are again") {
    TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    Workload w(7);
    auto first = w.ended_series(40);
    put(store, first);
    HistorySnapshot snap = load_history_snapshot(store);
    const int64_t seq_before = store.last_change();
    REQUIRE(snap.jobs == 40);

    SECTION("a prune that removes nothing changes nothing the plugin watches") {
        auto c = store.prune(first.front().end, 0, true);
        CHECK(c.jobs == 0);
        CHECK(store.prune_count() == 0);
        CHECK_FALSE(update(snap, store).full_load_reason);
    }
    SECTION("removing the older half") {
        const int64_t cutoff = first[20].end;  // the first 20 ended before it
        auto dry = store.prune(cutoff, 0, false);
        CHECK(dry.jobs == 20);
        CHECK(dry.kept == 20);
        CHECK(store.job_count() == 40);  // a dry run deletes nothing
        auto c = store.prune(cutoff, 0, true);
        CHECK(c.jobs == 20);
        CHECK(store.job_count() == 20);
        auto u = update(snap, store);
        REQUIRE(u.full_load_reason);
        CHECK(u.full_load_reason->find("pruned") != std::string::npos);
        CHECK(snap.jobs == 40);  // left alone
        snap = load_history_snapshot(store);
        CHECK(snap.jobs == 20);
        CHECK(snap.index.jobs_added() == 20);

        // Change numbers never go back, even when the prune took the newest rows' numbers with it.
        put(store, w.ended_series(5));
        CHECK(store.last_change() > seq_before);
        auto again = update(snap, store);
        CHECK_FALSE(again.full_load_reason);
        CHECK(again.applied == 5);
        std::string why;
        CHECK(same_history(snap, load_history_snapshot(store), &why));
        INFO(why);
    }
    SECTION("removing every ended job: the next ingest's change numbers are past the removed ones") {
        store.prune(w.clock + 1, 0, true);
        CHECK(store.job_count() == 0);
        CHECK(store.last_change() == 0);
        snap = load_history_snapshot(store);
        put(store, w.ended_series(3));
        CHECK(store.last_change() == seq_before + 3);
        auto u = update(snap, store);
        CHECK_FALSE(u.full_load_reason);
        CHECK(same_history(snap, load_history_snapshot(store)));
    }
}

}  // namespace test_history_updates
