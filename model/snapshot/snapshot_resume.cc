#include "model/snapshot/snapshot_resume.h"

#include <sys/stat.h>
#include <unistd.h>

#include <functional>

#include "model/snapshot/snapshot_file.h"

namespace jfp {

ResumedHistory resume_history(const HistoryStore &store, const std::string &path, const std::vector<uid_t> &trusted) {
    ResumedHistory r;
    if (!store.tracks_changes()) {
        r.why_not = "the store's schema does not number its changes (any jfp ingest into it upgrades it)";
        return r;
    }
    if (::access(path.c_str(), F_OK) != 0) {
        r.why_not = "there is no " + path + " (jfp ingest writes it)";
        return r;
    }
    SnapshotRead f = read_snapshot_file(path, trusted);
    if (!f.ok) {
        r.why_not = f.problem;
        return r;
    }
    if (f.file.lineage != store.lineage()) {
        r.why_not = path + " was taken from another store, or from this one before a prune removed its first ingest "
                           "records (its first ingest differs)";
        return r;
    }
    // A store restored from a backup numbers its changes and ingests again from the backup's: the changes
    // the snapshot holds beyond the backup would look applied. The ingest it saw last must still be there.
    if (!store.has_ingest_mark(f.file.newest_ingest)) {
        r.why_not = path + " saw an ingest the store no longer has (ingest " +
                    f.file.newest_ingest.substr(0, f.file.newest_ingest.find('|')) + "; was the store restored from a backup?)";
        return r;
    }
    r.file_seq = f.file.snap.seq;
    // The file stands where the store stood at its change number; what changed since is applied as a
    // running plugin applies an ingest, with the same refusals (a prune, changes gone back, late jobs).
    SnapshotUpdate u = update_history_snapshot(f.file.snap, store, [](const std::function<void()> &write) { write(); });
    if (u.full_load_reason) {
        r.why_not = path + " cannot be brought up to date: " + *u.full_load_reason;
        return r;
    }
    r.ok = true;
    r.applied = u.applied;
    r.snap = std::move(f.file.snap);
    return r;
}

std::vector<uid_t> snapshot_owners(const std::string &store_path) {
    std::vector<uid_t> trusted{0, ::geteuid()};
    struct stat st {};
    if (::stat(store_path.c_str(), &st) == 0) trusted.push_back(st.st_uid);
    return trusted;
}

std::optional<StreamBase> stream_base(const HistoryStore &store, const std::string &store_path) {
    if (!store.tracks_changes()) return std::nullopt;
    // Not one read transaction (each read takes its own): the ingest checks, once it holds the write lock,
    // that the store is still at the base's change number.
    ResumedHistory r = resume_history(store, snapshot_path_for(store_path), snapshot_owners(store_path));
    if (r.ok) return StreamBase{std::move(r.snap), r.file_seq};
    if (store.job_count() == 0) return StreamBase{load_history_snapshot(store), -1};
    return std::nullopt;
}

SnapshotRefresh refresh_snapshot(const std::string &store_path, SnapshotStream *streamed, int64_t streamed_file_seq) {
    SnapshotRefresh out;
    const std::string path = snapshot_path_for(store_path);
    HistoryStore store(store_path, HistoryStore::Access::ReadOnly);
    if (streamed) {
        HistoryStore::ReadTransaction tx(store);  // the checks, the marks and the queue's tokens: one view
        if (std::optional<HistorySnapshot> snap = streamed->finish(store)) {
            struct stat st {};
            out.first = ::stat(path.c_str(), &st) != 0;
            out.applied = streamed->applied();
            out.jobs = snap->jobs;
            if (!out.first && streamed_file_seq >= 0 && snap->seq == streamed_file_seq) return out;  // as the refresh: current
            out.written = out.streamed = true;
            out.bytes = write_snapshot_file(path, *snap, store.lineage(), store.newest_ingest_mark(), store_path);
            return out;
        }
        out.why_not_streamed = streamed->why_not();
    }
    ResumedHistory r = resume_history(store, path, snapshot_owners(store_path));
    HistorySnapshot snap;
    if (r.ok) {
        if (r.snap.seq == r.file_seq) {
            out.jobs = r.snap.jobs;
            return out;
        }
        out.incremental = true;
        out.applied = r.applied;
        snap = std::move(r.snap);
    } else {
        out.first = ::access(path.c_str(), F_OK) != 0;
        if (!out.first) out.why_replayed = r.why_not;
        snap = load_history_snapshot(store);
    }
    out.jobs = snap.jobs;
    // Read after the snapshot's own view: an ingest that started since is one the store has too.
    out.bytes = write_snapshot_file(path, snap, store.lineage(), store.newest_ingest_mark(), store_path);
    out.written = true;
    return out;
}

}  // namespace jfp
