// The plugin's history as a file, so that slurmctld (or a backup controller taking over) has a big history
// in a second instead of replaying the store: `jfp ingest` keeps <store>.snapshot beside the store; the
// plugin reads it with the model's trust checks, checks that it is a snapshot of this store, and applies
// only the store's changes since (snapshot_resume.h). A snapshot that is missing, damaged, foreign or
// stale is never used: the store is replayed as before, and the log says why.
//
// The file is one zstd frame (its size declared, its content checksummed) of a little-endian image:
// header (the format, the jfp release and history_meaning() that wrote it, the store's change number,
// prune count and ingest marks), the index's slot array and values as they are in memory, then the name,
// account and token maps.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/files/zstd_stream.h"
#include "model/snapshot/history_snapshot.h"

namespace jfp {

// <store>.snapshot
std::string snapshot_path_for(const std::string &store_path);

struct SnapshotFile {
    HistorySnapshot snap;       // seq and prunes: the store's, when the snapshot was taken
    std::string lineage;        // HistoryStore::lineage() of the store it was taken from
    std::string newest_ingest;  // HistoryStore::newest_ingest_mark() when it was taken
};

// The image, uncompressed (tests change it to prove the decoder's checks). A string past the decoder's
// cap (64 KiB: only a pending array's job id can be that long, and a user writes it) is left out of the
// file rather than making the file unreadable: that job's token, or the tie-break of a user's latest
// account, which no lookup at submission needs.
std::string encode_history_snapshot(const HistorySnapshot &snap, const std::string &lineage,
                                    const std::string &newest_ingest = std::string());
// What the index's keys and values mean in this build (its key hashing, name stems, how a job folds into
// the stats), as a number: a snapshot written by a build where it differs is not used.
uint64_t history_meaning();
// Reads an image of `size` bytes. Empty when out holds it; otherwise what is wrong with it. Nothing is
// sized past `size`, and a table that could make a lookup loop or index out of bounds is refused.
std::string decode_history_snapshot(ByteReader &in, uint64_t size, SnapshotFile &out);

// Writes the snapshot beside its place and renames it over (readers see the old file or the new one),
// readable as the store is. Returns the file's size; throws std::runtime_error naming the file.
uint64_t write_snapshot_file(const std::string &path, const HistorySnapshot &snap, const std::string &lineage,
                             const std::string &newest_ingest, const std::string &store_path);

struct SnapshotRead {
    bool ok = false;
    SnapshotFile file;
    std::string problem;  // when !ok
};
// The file, checked as the model is (owner among trusted, writable by no one else), then decoded.
SnapshotRead read_snapshot_file(const std::string &path, const std::vector<uid_t> &trusted);

}  // namespace jfp
