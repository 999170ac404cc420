// The history snapshot built from an ingest's rows as the store writes them (IngestWriter::observe), so
// that after a big ingest into a new store no replay reads the whole store back out of SQLite (at 1.3M
// jobs the replay was a third of `jfp ingest`).
//
// It must equal a replay of the store, and the history's statistics depend on the order jobs ended in
// (streaks, the latest outcomes, the run evidence): so it applies exactly what update_history_snapshot
// would, the final state of every row changed since its base, in replay order. Rows are held until
// `window` ended rows wait behind them, then applied oldest end first; a row held changes in place (a
// step's MaxRSS, an overlapping row re-ingested). What it cannot apply in order, it gives up on, and says
// why: a row that ends before one already applied (an export far out of end order), a change to a job
// that had ended before (applied already, or in the base), another writer between the ingest's batches.
// The caller then refreshes the snapshot as before (snapshot_resume.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "model/snapshot/history_snapshot.h"
#include "model/store/history_store.h"
#include "model/store/ingest_writer.h"

namespace jfp {

class SnapshotStream : public RowObserver {
public:
    static constexpr size_t kWindow = size_t{1} << 16;  // ended rows held: ~40 MiB at most
    // Rows not ended are held to the end: past this many (~160 MiB) it gives up rather than grow.
    static constexpr size_t kMaxOpen = size_t{1} << 18;

    // base: the history current to the store before the ingest's first write (its seq and prunes).
    explicit SnapshotStream(HistorySnapshot base, size_t window = kWindow, size_t max_open = kMaxOpen);

    // On the ingest's writing thread (HistoryStore::observe_ingest).
    void job_written(JobRecord &&row, const WrittenRow &w) override;
    void step_written(const StepInfo &step, const WrittenRow &w) override;
    void give_up(std::string why);
    bool given_up() const { return !why_not_.empty(); }
    const std::string &why_not() const { return why_not_; }
    // The store's change number the rows observed so far bring it to.
    int64_t last_seq() const { return last_seq_; }
    int64_t prunes() const { return snap_.prunes; }
    // Job rows applied so far (each changed job once, in its final state).
    uint64_t applied() const { return applied_; }

    // Applies what is held and returns the snapshot, when the store (read in the caller's read transaction)
    // holds exactly the base and the rows observed: no change number beyond them, no prune. Else gives up.
    std::optional<HistorySnapshot> finish(const HistoryStore &store);

private:
    struct Held {
        JobRecord job;  // its outcome as stored: the steps' verdicts are folded in when it is applied
        JobSeqs seqs;
        bool step_oom = false;
        int64_t rowid = 0;
    };
    using EndOrder = std::pair<int64_t, int64_t>;  // end, end_seq: the replay's ORDER BY

    Held *held(int64_t rowid);
    void apply(Held &h);
    void apply_oldest();

    HistorySnapshot snap_;
    int64_t from_;
    size_t window_;
    size_t max_open_;
    int64_t last_seq_;
    int64_t last_rowid_ = 0;  // the job written last: the one its steps that follow change
    uint64_t applied_ = 0;
    EndOrder applied_to_;  // the latest row applied (at first, the base's latest end)
    std::map<EndOrder, Held> ended_;
    std::unordered_map<int64_t, EndOrder> ended_row_;  // rowid -> its place in ended_
    std::unordered_map<int64_t, Held> open_;           // rows not ended, by rowid: applied last, as they stand then
    std::string why_not_;
};

}  // namespace jfp
