// The history from its snapshot file plus the store's changes since, for the plugin's loader; and the
// snapshot kept current, for jfp ingest and jfp prune. Either way the result equals a replay of the store
// (test_snapshot_file.cc proves it over random stores): the file is only a shortcut, never a second truth.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/snapshot/history_snapshot.h"
#include "model/snapshot/snapshot_stream.h"
#include "model/store/history_store.h"

namespace jfp {

struct ResumedHistory {
    bool ok = false;
    HistorySnapshot snap;  // when ok: current to the store
    int64_t file_seq = -1; // the store's change number the file was taken at
    uint64_t applied = 0;  // changed jobs applied on top of it
    std::string why_not;   // when !ok: why the store must be replayed instead
};
// The snapshot at path, when it is one of this store (same lineage, no prune since, changes not gone back),
// with the store's later changes applied.
ResumedHistory resume_history(const HistoryStore &store, const std::string &path, const std::vector<uid_t> &trusted);
// Whose snapshot file of the store at store_path is trusted: this user's, root's or the store owner's
// (root refreshing SlurmUser's store).
std::vector<uid_t> snapshot_owners(const std::string &store_path);
// What an ingest's streamed snapshot starts from: the history current to the store as it stands (its file
// and the changes since, or, for a store with no job yet, the empty history); nothing when only a replay
// could say (then the ingest does not stream, and its refresh replays as before).
struct StreamBase {
    HistorySnapshot snap;
    int64_t file_seq = -1;  // the change number of the file it was read from; -1: none
};
std::optional<StreamBase> stream_base(const HistoryStore &store, const std::string &store_path);

struct SnapshotRefresh {
    bool written = false;      // false: the file was current already
    bool incremental = false;  // the old file plus changes, not a replay
    bool first = false;        // there was no file before
    bool streamed = false;     // built from the ingest's rows as they were written (snapshot_stream.h)
    uint64_t applied = 0, jobs = 0, bytes = 0;
    std::string why_replayed;  // when a replay was needed: why the old file could not be used
    std::string why_not_streamed;  // when a stream was given and not used: why
};
// Brings <store>.snapshot up to the store at store_path (opened read-only here, after the caller's
// commit): from `streamed` when it holds every change the store has, else from the old file, else by a
// replay. streamed_file_seq: the file's change number when the stream began from it (StreamBase), so that
// a stream that changed nothing leaves the file as it is. Throws std::runtime_error when the store cannot
// be read or the file cannot be written.
SnapshotRefresh refresh_snapshot(const std::string &store_path, SnapshotStream *streamed = nullptr,
                                 int64_t streamed_file_seq = -1);

}  // namespace jfp
