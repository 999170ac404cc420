// Everything the plugin knows about the past, loaded from the history store by its background thread:
// the HistoryIndex (the same replay the trainer runs), who a uid is, each user's latest account and QOS
// (standing in for the association defaults slurmctld applies after job_submit), and which join token
// each job id still in the queue carries (for job_modify).
//
// A snapshot is loaded whole once, then kept current by applying only the job rows the store changed
// since (the store numbers its changes). When that could differ from a full replay (a job re-ingested
// with a new outcome, or one that ended before jobs already loaded) the update says why and the caller
// loads a new snapshot.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "model/history/history.h"
#include "model/store/history_store.h"

namespace jfp {

struct HistorySnapshot {
    // A user's latest account or QOS, and which submission it came from (submit order, then job).
    struct Latest {
        std::string value;
        int64_t submit = 0;
        std::string job;  // cluster '\x1f' job_key
    };

    HistoryIndex index;
    std::unordered_map<uint32_t, std::string> uid_names;
    std::unordered_map<std::string, Latest> last_account, last_qos;  // by user
    // Users some job names without a uid (exports without UID): their uids are looked up when the
    // history loads, off the submit path.
    std::unordered_set<std::string> users_without_uid;
    // JobID and JobIDRaw -> token, for jobs not ended: bounded by the queue, not by history.
    std::unordered_map<std::string, std::string> token_by_job;
    std::unordered_map<std::string, std::string> queue_token_by_job;  // from scontrol, replaced on each update
    uint64_t jobs = 0;
    int64_t latest_end = 0;
    // The store's change number this snapshot is current to; -1: the store does not number its
    // changes (schema 1, read-only), so only full loads.
    int64_t seq = -1;
    // The store's prune count at load: rows deleted since cannot be applied in place.
    int64_t prunes = 0;

    const std::string *user_name(uint32_t uid) const;
    const std::string *account_of(const std::string &user) const;
    const std::string *qos_of(const std::string &user) const;
    const std::string *token_of(const std::string &job_id) const;
};

HistorySnapshot load_history_snapshot(const HistoryStore &store);

// Applies the store's changes since snap.seq in chunks of `chunk` jobs, calling apply(fn) around each
// chunk's writes (the caller takes its lock there; readers see history up to some end time, never a
// half-applied job). Outside apply it only reads snap: when the index must grow, the bigger table is
// built there and apply only swaps it in, so readers never wait for a rehash. Returns the number of changed jobs applied, or the reason a full load is needed
// (snap is then untouched).
struct SnapshotUpdate {
    uint64_t applied = 0;
    std::optional<size_t> queue_tokens;  // set when the queued jobs' tokens changed: how many there are now
    std::optional<std::string> full_load_reason;
};
SnapshotUpdate update_history_snapshot(HistorySnapshot &snap, const HistoryStore &store,
                                       const std::function<void(const std::function<void()> &)> &apply,
                                       size_t chunk = 4096);

// One job row changed since change number `from`, applied in replay order (not ended first, then by end):
// counted when it became a job row since, added to the index when it ended since, and its submission and
// token noted. The one step both update_history_snapshot and the streamed snapshot (snapshot_stream.h) take.
void apply_changed_job(HistorySnapshot &snap, const JobRecord &job, const JobSeqs &seqs, int64_t from);
// Job id -> token of the jobs in slurmctld's queue, as the store holds them.
std::unordered_map<std::string, std::string> read_queue_tokens(const HistoryStore &store);

// Equality of what lookups see: used to prove incremental updates equal a full replay.
bool same_history(const HistorySnapshot &a, const HistorySnapshot &b, std::string *why = nullptr);

}  // namespace jfp
