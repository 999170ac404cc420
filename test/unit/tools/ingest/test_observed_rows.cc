// The ingest's writes told to an observer on a thread of its own (what builds the history snapshot from the
// rows): the same writes in the same order as told on the writing thread; a failing observer never fails
// the ingest; and `jfp ingest` writes the snapshot from the rows, equal to a replay of the store.
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.h"
#include "model/sacct/sacct_reader.h"
#include "model/snapshot/snapshot_file.h"
#include "model/store/history_store.h"
#include "model/util/time_util.h"
#include "test_support.h"
#include "tools/ingest/ingest_run.h"
#include "tools/ingest/observed_rows.h"
#include "tools/simulate/synth.h"

namespace test_observed_rows {

using namespace jfp;

namespace {

// Every write as a line: what it was, to which row, with what change numbers and the row's state.
struct Recorder : RowObserver {
    std::vector<std::string> heard;
    size_t fail_at = SIZE_MAX;
    void note(std::string s) {
        if (heard.size() == fail_at) throw std::runtime_error("observer broke at write " + std::to_string(fail_at));
        heard.push_back(std::move(s));
    }
    void job_written(JobRecord &&r, const WrittenRow &w) override {
        note("job " + r.job_key + " row " + std::to_string(w.rowid) + " seq " + std::to_string(w.seqs.seq) + "/" +
             std::to_string(w.seqs.job_seq) + "/" + std::to_string(w.seqs.end_seq) + " ins " + std::to_string(w.inserted) +
             " end " + std::to_string(r.end) + " out " + std::to_string(static_cast<int>(r.outcome)) + " rss " +
             std::to_string(r.max_rss_mb) + " oom " + std::to_string(w.step_oom));
    }
    void step_written(const StepInfo &s, const WrittenRow &w) override {
        note("step " + s.job_key + " seq " + std::to_string(w.seqs.seq) + " ins " + std::to_string(w.inserted) + " rss " +
             std::to_string(s.max_rss_mb) + " oom " + std::to_string(s.out_of_memory));
    }
};

std::string synth_export(const test::TempDir &dir, uint64_t jobs, uint64_t seed) {
    std::string txt = dir.file("export" + std::to_string(seed) + ".txt");
    SynthOptions so;
    so.jobs = jobs;
    so.seed = seed;
    std::FILE *out = std::fopen(txt.c_str(), "wb");
    generate_workload(so, out);
    std::fclose(out);
    return txt;
}

// Ingests `txt` twice into a new store, told to `observer`: the second time, a fifth of the ended jobs come
// back changed (a later end, the other outcome), and some steps with a larger MaxRSS, as an overlapping
// re-export can bring them.
void ingest(const std::string &db, const std::string &txt, RowObserver &observer, ObservedRows *threaded) {
    HistoryStore store(db, HistoryStore::Access::ReadWrite);
    for (int pass = 0; pass < 2; ++pass) {
        auto id = store.begin_ingest(txt);
        store.observe_ingest(threaded ? static_cast<RowObserver *>(threaded) : &observer);
        size_t n = 0;
        SacctReader reader(
            {},
            [&](JobRecord &&j) {
                if (pass == 1 && j.ended() && ++n % 5 == 0) {
                    j.end += 60;
                    j.outcome = j.outcome == Outcome::Failed ? Outcome::Completed : Outcome::Failed;
                }
                store.put_job(j);
                if (pass == 1 && j.ended() && n % 3 == 0)  // a step with a larger peak: the job's row changes
                    store.put_step(StepInfo{j.cluster, j.job_key, 100000.0 + static_cast<double>(n), n % 4 == 0});
            },
            [&](StepInfo &&s) { store.put_step(s); });
        std::FILE *in = std::fopen(txt.c_str(), "rb");
        reader.read(in, txt);
        std::fclose(in);
        store.finish_ingest(id, reader.report());
        store.observe_ingest(nullptr);
    }
}

// `jfp ingest` of a synthetic export into a new store dir/h.db, its snapshot on.
IngestOptions ingest_of_synth(const test::TempDir &dir, uint64_t jobs, uint64_t seed) {
    IngestOptions o;
    o.db = dir.file("h.db");
    o.files = {synth_export(dir, jobs, seed)};
    o.trusted_export = true;
    return o;
}

// The store's snapshot file equals a replay of the store, at the store's change number.
void check_equals_replay(const std::string &db) {
    SnapshotRead read = read_snapshot_file(snapshot_path_for(db), {getuid()});
    REQUIRE(read.ok);
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    HistorySnapshot replay = load_history_snapshot(store);
    std::string why;
    CHECK(same_history(read.file.snap, replay, &why));
    CHECK(why == "");
    CHECK(read.file.snap.seq == replay.seq);
}

// Standard output while f runs (run_ingest says there where the snapshot came from).
template <class F>
std::string stdout_of(F &&f) {
    std::fflush(stdout);
    std::FILE *tmp = std::tmpfile();
    int saved = dup(1);
    dup2(fileno(tmp), 1);
    f();
    std::fflush(stdout);
    dup2(saved, 1);
    close(saved);
    std::string text;
    std::rewind(tmp);
    for (int c; (c = std::fgetc(tmp)) != EOF;) text += static_cast<char>(c);
    std::fclose(tmp);
    return text;
}

}  // namespace

TEST_CASE("observed rows: told on their own thread, the writes arrive as the writing thread made them, in order") {
    test::TempDir dir;
    for (uint64_t seed : {3u, 4u}) {
        std::string txt = synth_export(dir, 5000, seed);  // several of the pipe's batches, steps among them
        Recorder direct, threaded;
        ingest(dir.file("direct" + std::to_string(seed) + ".db"), txt, direct, nullptr);
        {
            ObservedRows feed(threaded);
            ingest(dir.file("threaded" + std::to_string(seed) + ".db"), txt, threaded, &feed);
            CHECK(feed.finish().empty());
        }
        REQUIRE(direct.heard.size() > 6500);  // every job once, then changed jobs and steps
        CHECK(threaded.heard.size() == direct.heard.size());
        for (size_t i = 0; i < std::min(direct.heard.size(), threaded.heard.size()); ++i)
            if (threaded.heard[i] != direct.heard[i]) FAIL("write " << i << ": " << threaded.heard[i] << " vs " << direct.heard[i]);
    }
}

TEST_CASE("observed rows: an observer that fails stops being told, and the ingest goes on; finish says why") {
    test::TempDir dir;
    std::string txt = synth_export(dir, 3000, 5);
    Recorder broken;
    broken.fail_at = 1500;
    std::string why;
    {
        ObservedRows feed(broken);
        REQUIRE_NOTHROW(ingest(dir.file("h.db"), txt, broken, &feed));
        why = feed.finish();
    }
    CHECK(why == "it failed: observer broke at write 1500");
    CHECK(broken.heard.size() == 1500);
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadOnly);
    CHECK(store.job_count() >= 3000);
}

TEST_CASE("jfp ingest: the snapshot is built from the rows as they are written, and equals a replay of the store") {
    test::TempDir dir;
    IngestOptions o = ingest_of_synth(dir, 4000, 6);
    std::string said = stdout_of([&] { CHECK(run_ingest(o) == 0); });
    CHECK_THAT(said, HasText("written from the rows as they were ingested"));
    check_equals_replay(o.db);
}

TEST_CASE("jfp ingest: a stream that changed nothing leaves a current snapshot alone; one after changes the file lacks writes them") {
    test::TempDir dir;
    IngestOptions o = ingest_of_synth(dir, 3000, 7);
    CHECK(run_ingest(o) == 0);
    const std::string snapshot = snapshot_path_for(o.db);
    auto seq_of_file = [&] {
        SnapshotRead r = read_snapshot_file(snapshot, {getuid()});
        REQUIRE(r.ok);
        return r.file.snap.seq;
    };
    const int64_t first = seq_of_file();
    // The same export again: no row changes, the file is current and stays as it was (as the refresh did).
    std::string said = stdout_of([&] { CHECK(run_ingest(o) == 0); });
    CHECK(said.find("history snapshot") == std::string::npos);
    CHECK(seq_of_file() == first);
    // A later job without the snapshot: the store moves past the file. The same export once more changes no
    // row, but the stream's base (the file and that change) is newer than the file: it is written.
    const int64_t now = naive_local_now();
    test::write_file(dir.file("later.txt"), "JobIDRaw|JobID|Cluster|User|JobName|Submit|Start|End|State|ExitCode\n"
                                            "99000001|99000001|synth|user1|late|" + format_sacct_time(now - 600) + "|" +
                                                format_sacct_time(now - 500) + "|" + format_sacct_time(now - 60) + "|COMPLETED|0:0\n");
    IngestOptions later = o;
    later.files = {dir.file("later.txt")};
    later.snapshot = false;
    CHECK(run_ingest(later) == 0);
    later.snapshot = true;
    said = stdout_of([&] { CHECK(run_ingest(later) == 0); });
    CHECK_THAT(said, HasText("written from the last one and 0 jobs as they were ingested"));
    CHECK(seq_of_file() > first);
    check_equals_replay(o.db);
}

}  // namespace test_observed_rows
