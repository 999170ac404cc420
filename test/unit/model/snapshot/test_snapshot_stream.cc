// The snapshot built from an ingest's rows as they are written equals a replay of the store, or gives up
// and says why: over ingests in several batches, overlapping re-ingests, rows out of end order, steps.
#include "catch.h"
#include "history_workload.h"
#include "model/snapshot/snapshot_resume.h"
#include "model/snapshot/snapshot_stream.h"
#include "test_support.h"

namespace test_snapshot_stream {

using namespace jfp;
using jfp::test::TempDir;
using jfp::test::Workload;

namespace {

// One ingest observed by the stream; steps follow their job as sacct lists them.
void ingest(HistoryStore &store, SnapshotStream &stream, const std::vector<JobRecord> &jobs, Workload &w) {
    store.begin_ingest("test");
    store.observe_ingest(&stream);
    for (const auto &j : jobs) {
        store.put_job(j);
        if (j.ended() && w.pick(2)) {
            StepInfo s{j.cluster, j.job_key, 50.0 * (1 + w.pick(80)), w.pick(6) == 0};
            store.put_step(s);
        }
    }
    store.finish_ingest(0, SacctReadReport());
    store.observe_ingest(nullptr);
}

}  // namespace

TEST_CASE("snapshot stream: equals a replay over batches, re-ingests and rows out of end order, or says why not") {
    int streamed = 0, gave_up = 0;
    for (uint64_t seed : {31u, 32u, 33u, 34u, 35u, 36u}) {
        TempDir dir;
        HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
        Workload w(seed);
        SnapshotStream stream(load_history_snapshot(store), 8 + static_cast<size_t>(w.pick(40)));
        std::vector<JobRecord> all;
        for (int batch = 0; batch < 6; ++batch) {
            std::vector<JobRecord> jobs;
            for (int i = 0; i < 40; ++i) {
                w.clock += w.pick(30);
                JobRecord j = w.submit();
                if (w.pick(6)) w.finish(j, w.clock + w.pick(seed % 2 ? 600 : 20));  // some end far out of order
                jobs.push_back(j);
            }
            if (seed >= 35 && batch == 3 && !all.empty()) {  // an overlapping re-ingest: unchanged and changed rows
                jobs.push_back(all[0]);
                JobRecord again = all.back();
                again.outcome = again.outcome == Outcome::Failed ? Outcome::Completed : Outcome::Failed;
                jobs.push_back(again);
            }
            ingest(store, stream, jobs, w);
            all.insert(all.end(), jobs.begin(), jobs.end());
        }
        auto snap = stream.finish(store);
        HistorySnapshot replay = load_history_snapshot(store);
        INFO("seed " << seed << ": " << stream.why_not());
        if (snap) {
            ++streamed;
            std::string why;
            CHECK(same_history(*snap, replay, &why));
            CHECK(why.empty());
            CHECK(snap->seq == replay.seq);
        } else {
            ++gave_up;
            CHECK_FALSE(stream.why_not().empty());
        }
    }
    CHECK(streamed > 0);
    CHECK(gave_up > 0);
}

TEST_CASE("snapshot stream: a write by another connection between batches is noticed") {
    TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    Workload w(7);
    SnapshotStream stream(load_history_snapshot(store));
    ingest(store, stream, w.ended_series(5), w);
    HistoryStore other(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    jfp::test::put(other, w.ended_series(2));
    CHECK_FALSE(stream.finish(store));
    CHECK_THAT(stream.why_not(), HasText("beyond the rows"));
}

TEST_CASE("snapshot stream: jobs not ended are held only up to a bound; past it, it gives up and says so") {
    TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    Workload w(9);
    SnapshotStream stream(load_history_snapshot(store), SnapshotStream::kWindow, 10);
    std::vector<JobRecord> queued;
    for (int i = 0; i < 10; ++i) queued.push_back(w.submit());
    ingest(store, stream, queued, w);
    CHECK_FALSE(stream.given_up());  // ten held: at the bound, not past it
    ingest(store, stream, {w.submit()}, w);
    CHECK(stream.given_up());
    CHECK_THAT(stream.why_not(), HasText("more than 10 jobs of the ingest had not ended"));
    CHECK_FALSE(stream.finish(store));
}

}  // namespace test_snapshot_stream
