#include "model/archive/script_archive.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "model/archive/blob_codec.h"
#include "model/archive/user_write_budget.h"
#include "model/util/log.h"

namespace jfp {

namespace {

const char *kSchema = R"(
CREATE TABLE IF NOT EXISTS blobs (
    hash TEXT PRIMARY KEY,      -- SHA-256 of the bytes, hex
    size INTEGER NOT NULL,      -- bytes as submitted
    codec INTEGER NOT NULL,     -- 0: stored as is, 1: zstd
    data BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS submissions (
    token TEXT PRIMARY KEY,     -- the join token in the job's AdminComment
    cluster TEXT NOT NULL,
    submitted INTEGER NOT NULL, -- naive local seconds
    uid INTEGER NOT NULL,
    user TEXT,
    name TEXT,
    work_dir TEXT,
    script_hash TEXT NOT NULL,
    script_bytes INTEGER NOT NULL,
    env_hash TEXT,
    env_bytes INTEGER
);
CREATE INDEX IF NOT EXISTS submissions_user_name ON submissions(user, name, submitted);
CREATE INDEX IF NOT EXISTS submissions_submitted ON submissions(submitted);
CREATE INDEX IF NOT EXISTS submissions_script ON submissions(script_hash);
CREATE INDEX IF NOT EXISTS submissions_env ON submissions(env_hash) WHERE env_hash IS NOT NULL;
)";

const char *kColumns = "token, cluster, submitted, uid, user, name, work_dir, script_hash, script_bytes, env_hash, env_bytes";

ArchivedSubmission read_row(const Stmt &s) {
    ArchivedSubmission a;
    a.token = s.text_at(0);
    a.cluster = s.text_at(1);
    a.submitted = s.int_at(2);
    a.uid = static_cast<uint32_t>(s.int_at(3));
    a.user = s.text_at(4);
    a.name = s.text_at(5);
    a.work_dir = s.text_at(6);
    a.script_hash = s.text_at(7);
    a.script_bytes = s.int_at(8);
    a.env_hash = s.is_null(9) ? std::string() : s.text_at(9);
    a.env_bytes = s.is_null(10) ? 0 : s.int_at(10);
    return a;
}

}  // namespace

ScriptArchive::ScriptArchive(const std::string &path, Access access) : writable_(access == Access::ReadWrite) {
    static const DbSchema kVersioned{"archive", "script archive",
                                     "check script_archive in jfp.conf and that its directory is writable by SlurmUser",
                                     kSchema, kSchemaVersion};
    VersionedDb opened = open_versioned_db(path, writable_, kVersioned);
    db_ = std::move(opened.db);
    if (!opened.note.empty()) log_info(opened.note);
    if (!writable_ && opened.found == 0) {
        throw SqliteError(path + " is not a jfp script archive (empty, or another kind of database); the plugin "
                                 "creates it when script_archive is set in jfp.conf",
                          SQLITE_ERROR);
    }
}

// IMMEDIATE: a prune by `jfp scripts prune` cannot delete a blob between put()'s look and its insert.
void ScriptArchive::begin() { tx_.emplace(db_); }
void ScriptArchive::commit() {
    if (!tx_) throw SqliteError(db_.path() + ": commit without begin", SQLITE_MISUSE);
    tx_->commit();
    tx_.reset();
}
void ScriptArchive::rollback() noexcept { tx_.reset(); }

// The bytes the blob took as stored (UserWriteBudget's measure), 0 when the archive held it already.
uint64_t ScriptArchive::store_blob(std::string_view bytes, const std::string &hash) {
    {
        Stmt seen(db_, "SELECT 1 FROM blobs WHERE hash = ?1");
        seen.bind(1, std::string_view(hash));
        if (seen.step()) return 0;
    }
    // zstd unless it does not help (binary or tiny content is kept as is).
    std::string z = zstd_compress(bytes);
    bool use_z = z.size() < bytes.size();
    std::string_view data = use_z ? std::string_view(z) : bytes;
    Stmt ins(db_, "INSERT INTO blobs (hash, size, codec, data) VALUES (?1, ?2, ?3, ?4)");
    ins.bind(1, std::string_view(hash))
        .bind(2, static_cast<int64_t>(bytes.size()))
        .bind(3, static_cast<int64_t>(use_z ? 1 : 0))
        .bind_blob(4, data.data(), data.size());
    ins.run();
    return UserWriteBudget::row_bytes(hash.size() + data.size());
}

ScriptArchive::PutOutcome ScriptArchive::put(ArchivedSubmission &meta, std::string_view script, const std::string_view *env,
                                             uint64_t *added) {
    if (added) *added = 0;
    meta.script_hash = sha256_hex(script);
    meta.script_bytes = std::max(meta.script_bytes, static_cast<int64_t>(script.size()));
    if (env) {
        meta.env_hash = sha256_hex(*env);
        meta.env_bytes = static_cast<int64_t>(env->size());
    } else {
        meta.env_hash.clear();
        meta.env_bytes = 0;
    }
    // A submission's token is new: a row already there is another job's (two controllers' tokens met,
    // model/jobs/token_issuer.h), and is kept rather than made to point at this job's script.
    Stmt ins(db_, "INSERT INTO submissions (token, cluster, submitted, uid, user, name, work_dir, script_hash, script_bytes, "
                  "env_hash, env_bytes) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11) ON CONFLICT(token) DO NOTHING");
    ins.bind(1, std::string_view(meta.token))
        .bind(2, std::string_view(meta.cluster))
        .bind(3, meta.submitted)
        .bind(4, static_cast<int64_t>(meta.uid))
        .bind(5, std::string_view(meta.user))
        .bind(6, std::string_view(meta.name))
        .bind(7, std::string_view(meta.work_dir))
        .bind(8, std::string_view(meta.script_hash))
        .bind(9, meta.script_bytes);
    if (env) ins.bind(10, std::string_view(meta.env_hash)).bind(11, meta.env_bytes);
    else ins.bind_null(10).bind_null(11);
    ins.run();
    if (sqlite3_changes(db_.get()) == 0) return PutOutcome::TokenTaken;
    const uint64_t script_added = store_blob(script, meta.script_hash);
    const uint64_t env_added = env ? store_blob(*env, meta.env_hash) : 0;
    // Each index keeps a copy of its columns: the token (the key), user and name, the script's and the
    // environment's hashes.
    if (added)
        *added = UserWriteBudget::row_bytes(2 * meta.token.size() + meta.cluster.size() + 2 * meta.user.size() +
                                            2 * meta.name.size() + meta.work_dir.size() + 2 * meta.script_hash.size() +
                                            2 * meta.env_hash.size()) +
                 script_added + env_added;
    return script_added != 0 ? PutOutcome::NewScript : PutOutcome::Stored;
}

std::function<std::unordered_map<uint32_t, uint64_t>(int64_t)> archive_bytes_source(const std::string &path) {
    if (path.empty()) return nullptr;
    return [path](int64_t since) -> std::unordered_map<uint32_t, uint64_t> {
        if (::access(path.c_str(), F_OK) != 0) return {};
        return ScriptArchive(path, ScriptArchive::Access::ReadOnly).bytes_by_user_since(since);
    };
}

// The same measure as put()'s, summed in SQL (length of a BLOB cast: bytes, not characters).
std::unordered_map<uint32_t, uint64_t> ScriptArchive::bytes_by_user_since(int64_t since) const {
    std::unordered_map<uint32_t, uint64_t> out;
    {
        Stmt q(db_, ("SELECT uid, SUM(" +
                     UserWriteBudget::row_bytes_sql(
                         "2 * length(CAST(token AS BLOB)) + length(CAST(cluster AS BLOB))"
                         " + 2 * coalesce(length(CAST(user AS BLOB)), 0) + 2 * coalesce(length(CAST(name AS BLOB)), 0)"
                         " + coalesce(length(CAST(work_dir AS BLOB)), 0) + 2 * length(CAST(script_hash AS BLOB))"
                         " + 2 * coalesce(length(CAST(env_hash AS BLOB)), 0)") +
                     ") FROM submissions WHERE submitted >= ?1 GROUP BY uid").c_str());
        q.bind(1, since);
        while (q.step()) out[static_cast<uint32_t>(q.int_at(0))] += static_cast<uint64_t>(q.int_at(1));
    }
    // A blob is charged to the submission that first referenced it.
    for (const char *col : {"script_hash", "env_hash"}) {
        std::string sql = "SELECT s.uid, SUM(" + UserWriteBudget::row_bytes_sql("length(CAST(b.hash AS BLOB)) + length(b.data)") +
                          ") FROM submissions s "
                          "JOIN blobs b ON b.hash = s." + col +
                          " WHERE s.submitted >= ?1 AND NOT EXISTS (SELECT 1 FROM submissions o WHERE o." + col + " = s." + col +
                          " AND (o.submitted < s.submitted OR (o.submitted = s.submitted AND o.rowid < s.rowid))) GROUP BY s.uid";
        Stmt q(db_, sql.c_str());
        q.bind(1, since);
        while (q.step()) out[static_cast<uint32_t>(q.int_at(0))] += static_cast<uint64_t>(q.int_at(1));
    }
    return out;
}

std::optional<ArchivedSubmission> ScriptArchive::by_token(const std::string &token) const {
    Stmt s(db_, (std::string("SELECT ") + kColumns + " FROM submissions WHERE token = ?1").c_str());
    s.bind(1, std::string_view(token));
    if (!s.step()) return std::nullopt;
    return read_row(s);
}

std::string ScriptArchive::blob(const std::string &hash) const {
    Stmt s(db_, "SELECT size, codec, data FROM blobs WHERE hash = ?1");
    s.bind(1, std::string_view(hash));
    if (!s.step())
        throw std::runtime_error("the archive " + path() + " has no content " + hash.substr(0, 12) +
                                 " (pruned, or the archive is damaged)");
    auto size = static_cast<size_t>(s.int_at(0));
    int64_t codec = s.int_at(1);
    int n = 0;
    const void *p = s.blob_at(2, n);
    std::string_view data(static_cast<const char *>(p ? p : ""), static_cast<size_t>(n));
    std::string out;
    if (codec == 1) out = zstd_decompress(data, size);
    else if (codec == 0 && data.size() == size) out.assign(data);
    else
        throw std::runtime_error("the archive " + path() + " holds content " + hash.substr(0, 12) +
                                 " in a form this jfp cannot read (codec " + std::to_string(codec) + ")");
    if (sha256_hex(out) != hash)
        throw std::runtime_error("the archive " + path() + " content " + hash.substr(0, 12) +
                                 " does not match its hash (the archive is damaged)");
    return out;
}

std::vector<ArchivedSubmission> ScriptArchive::find(const ArchiveQuery &q) const {
    std::string sql = std::string("SELECT ") + kColumns +
                      " FROM submissions WHERE submitted >= ?1 AND submitted < ?2"
                      " AND (?3 = '' OR user = ?3) AND (?4 = '' OR name = ?4) ORDER BY submitted DESC, rowid DESC";
    if (q.limit) sql += " LIMIT " + std::to_string(q.limit);
    Stmt s(db_, sql.c_str());
    s.bind(1, q.since).bind(2, q.until).bind(3, std::string_view(q.user)).bind(4, std::string_view(q.name));
    std::vector<ArchivedSubmission> out;
    while (s.step()) out.push_back(read_row(s));
    return out;
}

ArchiveStats ScriptArchive::stats() const {
    ArchiveStats st;
    {
        Stmt s(db_, "SELECT count(*), count(env_hash), count(DISTINCT script_hash), coalesce(sum(script_bytes), 0), "
                    "coalesce(min(submitted), 0), coalesce(max(submitted), 0) FROM submissions");
        s.step();
        st.submissions = static_cast<uint64_t>(s.int_at(0));
        st.with_env = static_cast<uint64_t>(s.int_at(1));
        st.scripts = static_cast<uint64_t>(s.int_at(2));
        st.script_bytes = static_cast<uint64_t>(s.int_at(3));
        st.first = s.int_at(4);
        st.last = s.int_at(5);
    }
    {
        Stmt s(db_, "SELECT count(*), coalesce(sum(size), 0), coalesce(sum(length(data)), 0) FROM blobs");
        s.step();
        st.blobs = static_cast<uint64_t>(s.int_at(0));
        st.unique_bytes = static_cast<uint64_t>(s.int_at(1));
        st.stored_bytes = static_cast<uint64_t>(s.int_at(2));
    }
    {
        Stmt s(db_, "SELECT coalesce(sum(size), 0) FROM blobs WHERE hash IN (SELECT script_hash FROM submissions)");
        s.step();
        st.unique_script_bytes = static_cast<uint64_t>(s.int_at(0));
    }
    for (const char *suffix : {"", "-wal"}) {
        struct stat sb {};
        if (::stat((path() + suffix).c_str(), &sb) == 0) st.file_bytes += static_cast<uint64_t>(sb.st_size);
    }
    return st;
}

uint64_t ScriptArchive::delete_unreferenced_blobs() {
    db_.exec("DELETE FROM blobs WHERE hash NOT IN (SELECT script_hash FROM submissions) "
             "AND hash NOT IN (SELECT env_hash FROM submissions WHERE env_hash IS NOT NULL)");
    return static_cast<uint64_t>(sqlite3_changes(db_.get()));
}

PruneResult ScriptArchive::prune(int64_t before) {
    PruneResult r;
    WriteTransaction tx(db_);
    Stmt del(db_, "DELETE FROM submissions WHERE submitted < ?1");
    del.bind(1, before);
    del.run();
    r.submissions = static_cast<uint64_t>(sqlite3_changes(db_.get()));
    r.blobs = delete_unreferenced_blobs();
    tx.commit();
    return r;
}

PruneResult ScriptArchive::prune_orphans(const std::string &store_path, int64_t from, int64_t to, bool apply) {
    PruneResult r;
    {
        Stmt attach(db_, "ATTACH DATABASE ?1 AS store");
        attach.bind(1, std::string_view(store_path));
        attach.run();
    }
    const std::string orphan =
        "submitted BETWEEN ?1 AND ?2 AND token NOT IN (SELECT jfp_token FROM store.jobs WHERE jfp_token IS NOT NULL) "
        "AND token NOT IN (SELECT token FROM store.queue_tokens)";
    if (!apply) {
        {
            Stmt c(db_, ("SELECT count(*) FROM submissions WHERE " + orphan).c_str());
            c.bind(1, from).bind(2, to);
            if (c.step()) r.submissions = static_cast<uint64_t>(c.int_at(0));
        }
        db_.exec("DETACH DATABASE store");
        return r;
    }
    {
        WriteTransaction tx(db_);
        {
            Stmt del(db_, ("DELETE FROM submissions WHERE " + orphan).c_str());
            del.bind(1, from).bind(2, to);
            del.run();
        }
        r.submissions = static_cast<uint64_t>(sqlite3_changes(db_.get()));
        r.blobs = delete_unreferenced_blobs();
        tx.commit();
    }
    db_.exec("DETACH DATABASE store");
    return r;
}

}  // namespace jfp
