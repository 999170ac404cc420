// The job-script archive: every batch script the plugin saw (and, if the admin asks, the job's submit
// environment), stored once per distinct content, compressed, in one SQLite file in WAL mode.
//
// A submission is keyed by its join token (AdminComment "jfp:t=..."): at job_submit no job id exists yet.
// The history store maps tokens to job ids and outcomes once sacct is ingested; `jfp scripts` joins the two.
// Scripts may hold secrets (tokens, passwords): the file is created 0600 and stays the SlurmUser's.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/files/sqlite_util.h"

namespace jfp {

struct ArchivedSubmission {
    std::string token, cluster;
    int64_t submitted = 0;  // naive local seconds, as the plugin's submit_time
    uint32_t uid = 0;
    std::string user, name, work_dir;
    std::string script_hash, env_hash;  // env_hash empty: environment not kept
    int64_t script_bytes = 0, env_bytes = 0;
};

struct ArchiveQuery {
    std::string user, name;  // empty: any
    int64_t since = INT64_MIN, until = INT64_MAX;
    size_t limit = 0;  // 0: no limit
};

struct ArchiveStats {
    uint64_t submissions = 0, with_env = 0;
    uint64_t scripts = 0;             // distinct scripts
    uint64_t script_bytes = 0;        // as submitted, summed over submissions
    uint64_t unique_script_bytes = 0; // distinct scripts, uncompressed
    uint64_t unique_bytes = 0;        // distinct blobs (scripts and environments), uncompressed
    uint64_t stored_bytes = 0;        // the same, as stored
    uint64_t blobs = 0;
    int64_t first = 0, last = 0;      // submitted, 0 when empty
    uint64_t file_bytes = 0;          // the database file with its WAL
};

struct PruneResult {
    uint64_t submissions = 0, blobs = 0;
};

// What an archive at `path` holds per user since a time, as UserWriteBudget reads it (nothing when the file
// does not exist yet); an empty path: no source.
std::function<std::unordered_map<uint32_t, uint64_t>(int64_t)> archive_bytes_source(const std::string &path);

class ScriptArchive {
public:
    enum class Access { ReadOnly, ReadWrite };
    static constexpr int kSchemaVersion = 1;

    // ReadWrite creates the file (mode 0600) and its tables when missing.
    ScriptArchive(const std::string &path, Access access);
    ScriptArchive(const ScriptArchive &) = delete;
    ScriptArchive &operator=(const ScriptArchive &) = delete;

    // Writer side. put() stores the submission row and the blobs it has not seen; call it between begin()
    // and commit() (a batch is one transaction). NewScript when the script itself was new; TokenTaken, and
    // nothing stored, when a row already has meta.token. meta.script_bytes is the size submitted when only
    // a head of it is kept (larger than script), else script's size. added: what the call added to the file,
    // as UserWriteBudget measures it (the row, its index copies and the blobs it stored, compressed as stored).
    enum class PutOutcome { Stored, NewScript, TokenTaken };
    void begin();
    void commit();
    void rollback() noexcept;
    PutOutcome put(ArchivedSubmission &meta, std::string_view script, const std::string_view *env, uint64_t *added = nullptr);

    std::optional<ArchivedSubmission> by_token(const std::string &token) const;
    // The bytes exactly as submitted; throws when the blob is missing or damaged.
    std::string blob(const std::string &hash) const;
    // Newest first.
    std::vector<ArchivedSubmission> find(const ArchiveQuery &q) const;
    ArchiveStats stats() const;
    // Per uid, what its submissions since `since` (naive local seconds) added, as put() measures it: their
    // rows, and the blobs no earlier submission referenced.
    std::unordered_map<uint32_t, uint64_t> bytes_by_user_since(int64_t since) const;
    // Submissions older than `before` (naive local seconds), then blobs no submission references.
    PruneResult prune(int64_t before);
    // Submissions within [from, to] whose token the history store at store_path holds neither for a job nor
    // for a queued one (requests that never became jobs), then blobs no submission references. apply false:
    // only counts.
    PruneResult prune_orphans(const std::string &store_path, int64_t from, int64_t to, bool apply);
    void vacuum() { db_.exec("VACUUM"); }

    const std::string &path() const { return db_.path(); }
    // Before letting go of an archive renamed or removed under its writer: see checkpoint_before_release.
    void checkpoint_before_release() noexcept { jfp::checkpoint_before_release(db_); }

private:
    uint64_t store_blob(std::string_view bytes, const std::string &hash);  // bytes added, 0 when held already
    uint64_t delete_unreferenced_blobs();  // in the caller's transaction
    Db db_;
    bool writable_;
    std::optional<WriteTransaction> tx_;  // the writer's batch, between begin() and commit()
};

}  // namespace jfp
