// Keeps the history store's snapshot file (model/snapshot/snapshot_file.h) current after the CLI changes
// the store, so that slurmctld starting (or a backup controller taking over) has the history in seconds.
#pragma once

#include <chrono>
#include <string>

namespace jfp {

class SnapshotKeeper {
public:
    // interval: at most one refresh per interval (jfp ingest --follow); 0 refreshes after every change.
    SnapshotKeeper(std::string store_path, bool enabled, bool quiet, std::chrono::seconds interval = std::chrono::seconds(0))
        : store_(std::move(store_path)), enabled_(enabled), quiet_(quiet), interval_(interval) {}
    // After the caller's commit. A failure is reported on stderr and does not fail the caller: the store
    // holds its jobs, and the plugin replays it without a snapshot (more slowly).
    void after_change(const char *who);

private:
    std::string store_;
    bool enabled_, quiet_;
    std::chrono::seconds interval_;
    std::chrono::steady_clock::time_point last_{};
    bool done_once_ = false;
};

}  // namespace jfp
