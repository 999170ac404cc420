// Keeps the history store's snapshot file (model/snapshot/snapshot_file.h) current after the CLI changes
// the store, so that slurmctld starting (or a backup controller taking over) has the history in seconds.
// With streaming on, it builds the snapshot from the ingest's rows as they are written
// (model/snapshot/snapshot_stream.h), and a new store needs no replay after its first ingest.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "model/snapshot/snapshot_stream.h"
#include "model/store/history_store.h"
#include "tools/ingest/observed_rows.h"

namespace jfp {

class SnapshotKeeper {
public:
    // interval: at most one refresh per interval (jfp ingest --follow); 0 refreshes after every change.
    // stream: build the snapshot from the rows as they are written (one refresh after the ingests).
    SnapshotKeeper(std::string store_path, bool enabled, bool quiet, std::chrono::seconds interval = std::chrono::seconds(0),
                   bool stream = false)
        : store_(std::move(store_path)), enabled_(enabled), quiet_(quiet), stream_wanted_(enabled && stream), interval_(interval) {}
    // Around each ingest into the store (opened read-write): before begin_ingest, after it (the ingest's
    // writes are then observed), when it failed (part of it may be rolled back: the stream gives up), and
    // once it committed.
    void before_ingest(const HistoryStore &store);
    void ingest_began(HistoryStore &store);
    void ingest_failed();
    void ingest_done(HistoryStore &store);
    // After the caller's commit. A failure is reported on stderr and does not fail the caller: the store
    // holds its jobs, and the plugin replays it without a snapshot (more slowly).
    void after_change(const char *who);

private:
    void give_up(const std::string &why);
    void end_feed();

    std::string store_;
    bool enabled_, quiet_, stream_wanted_;
    std::unique_ptr<SnapshotStream> stream_;
    int64_t stream_file_seq_ = -1;  // the file's change number the stream began from (StreamBase)
    std::unique_ptr<ObservedRows> feed_;  // the ingest's writes, told to stream_ on a thread of its own
    std::chrono::seconds interval_;
    std::chrono::steady_clock::time_point last_{};
    bool done_once_ = false;
};

}  // namespace jfp
