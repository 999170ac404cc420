// What the feature log holds, read back: the readers `jfp ingest`, `jfp train`, the budget's seed and
// `jfp parity` use, and retention. The plugin's writer is feature_log_writer.cc.
#include "model/scoring/feature_log.h"

#include <unistd.h>

#include <cstring>
#include <functional>
#include <limits>

#include "model/util/log.h"
#include "model/files/sqlite_util.h"

namespace jfp {

namespace {

// feature_log_row_bytes summed in SQL (length of a BLOB cast: bytes, not characters).
std::unordered_map<uint32_t, uint64_t> bytes_by_user_since(Db &db, int64_t since) {
    std::unordered_map<uint32_t, uint64_t> out;
    Stmt q(db, ("SELECT uid, SUM(" +
                UserWriteBudget::row_bytes_sql("2 * length(CAST(token AS BLOB)) + length(CAST(model_id AS BLOB))"
                                               " + coalesce(length(CAST(user AS BLOB)), 0)"
                                               " + coalesce(length(CAST(name AS BLOB)), 0) + length(features)") +
                ") FROM scored WHERE scored_at >= ?1 GROUP BY uid")
                   .c_str());
    q.bind(1, since);
    while (q.step()) out[static_cast<uint32_t>(q.int_at(0))] += static_cast<uint64_t>(q.int_at(1));
    return out;
}

}  // namespace

uint64_t feature_log_row_bytes(const FeatureLogEntry &e) {
    return UserWriteBudget::row_bytes(2 * e.token.view().size() + (e.model_id ? e.model_id->size() : 0) + e.user.size() +
                                      e.name.size() + sizeof(float) * e.x.size());
}

std::unordered_map<uint32_t, uint64_t> feature_log_bytes_by_user_since(const std::string &path, int64_t since) {
    if (::access(path.c_str(), F_OK) != 0) return {};
    Db db(path, SQLITE_OPEN_READONLY);
    return bytes_by_user_since(db, since);
}

std::unordered_map<std::string, uint64_t> logged_script_fingerprints(const std::string &path) {
    std::unordered_map<std::string, uint64_t> out;
    if (::access(path.c_str(), F_OK) != 0) return out;
    Db db(path, SQLITE_OPEN_READONLY);
    Stmt has(db, "SELECT count(*) FROM pragma_table_info('scored') WHERE name = 'script_fp'");
    if (!has.step() || has.int_at(0) == 0) return out;
    Stmt s(db, "SELECT token, script_fp FROM scored WHERE script_fp IS NOT NULL");
    while (s.step()) out.emplace(s.text_at(0), static_cast<uint64_t>(s.int_at(1)));
    return out;
}

std::unordered_map<std::string, LoggedFeatures> read_feature_log(const std::string &path) {
    std::unordered_map<std::string, LoggedFeatures> out;
    Db db(path, SQLITE_OPEN_READONLY);
    Stmt has_fp(db, "SELECT count(*) FROM pragma_table_info('scored') WHERE name = 'script_fp'");
    const bool fp = has_fp.step() && has_fp.int_at(0) > 0;
    Stmt s(db, fp ? "SELECT token, schema_version, model_id, p_fail, features, scored_at, threshold, action, uid, script_fp FROM scored"
                  : "SELECT token, schema_version, model_id, p_fail, features, scored_at, threshold, action, uid, NULL FROM scored");
    while (s.step()) {
        LoggedFeatures f;
        f.schema_version = static_cast<int>(s.int_at(1));
        f.model_id = s.text_at(2);
        f.p_fail = static_cast<float>(s.real_at(3));
        f.scored_at = s.int_at(5);
        f.threshold = static_cast<float>(s.real_at(6));
        f.action = static_cast<uint8_t>(s.int_at(7));
        f.uid = static_cast<uint32_t>(s.int_at(8));
        f.script_fingerprint = s.is_null(9) ? 0 : static_cast<uint64_t>(s.int_at(9));
        int n = 0;
        const void *blob = s.blob_at(4, n);
        // A row of an earlier schema holds a prefix of ours: the features it lacks are unknown.
        const int count = feature_count_of_schema(f.schema_version);
        if (count == 0 || n != static_cast<int>(sizeof(float)) * count) continue;
        f.x.fill(std::numeric_limits<float>::quiet_NaN());
        std::memcpy(f.x.data(), blob, static_cast<size_t>(n));
        out.emplace(s.text_at(0), f);
    }
    return out;
}

namespace {

// Deletes the rows matching `where`, 5,000 per transaction, so that the plugin's writer (which waits up to
// 5 s for the file) never drops a row for it; r.removed counts what was committed.
void delete_in_batches(Db &db, const std::string &where, const std::function<void(Stmt &)> &bind, FeatureLogPrune &r) {
    Stmt del(db, ("DELETE FROM scored WHERE rowid IN (SELECT rowid FROM scored WHERE " + where + " LIMIT 5000)").c_str());
    while (true) {
        WriteTransaction tx(db);
        bind(del);
        del.run();
        tx.commit();
        uint64_t n = static_cast<uint64_t>(sqlite3_changes(db.get()));
        r.removed += n;
        if (n == 0) break;
    }
}

}  // namespace

void prune_feature_log(const std::string &path, int64_t before, bool apply, bool vacuum, FeatureLogPrune &r) {
    r = FeatureLogPrune();
    Db db(path, apply ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY);
    if (apply)
        if (std::string note = set_journal_mode(db); !note.empty()) log_info("feature log: " + note);
    auto count = [&](const char *where) {
        Stmt s(db, (std::string("SELECT count(*) FROM scored WHERE ") + where).c_str());
        s.bind(1, before);
        return s.step() ? static_cast<uint64_t>(s.int_at(0)) : 0;
    };
    if (!apply) {
        r.removed = count("scored_at < ?1");
        r.kept = count("scored_at >= ?1");
        return;
    }
    // Old rows have low rowids (rows are appended as jobs are scored): each batch's scan finds them first.
    delete_in_batches(db, "scored_at < ?1", [&](Stmt &del) { del.bind(1, before); }, r);
    r.kept = count("1 OR ?1");
    if (vacuum) db.exec("VACUUM");
}

void prune_feature_log_orphans(const std::string &path, const std::string &store_path, int64_t from, int64_t to,
                               bool apply, FeatureLogPrune &r) {
    r = FeatureLogPrune();
    Db db(path, apply ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY);
    if (apply)
        if (std::string note = set_journal_mode(db); !note.empty()) log_info("feature log: " + note);
    {
        Stmt attach(db, "ATTACH DATABASE ?1 AS store");
        attach.bind(1, std::string_view(store_path));
        attach.run();
    }
    const char *orphan =
        "scored_at BETWEEN ?1 AND ?2 AND token NOT IN (SELECT jfp_token FROM store.jobs WHERE jfp_token IS NOT NULL) "
        "AND token NOT IN (SELECT token FROM store.queue_tokens)";
    auto count = [&](const std::string &where) {
        Stmt s(db, ("SELECT count(*) FROM scored WHERE " + where).c_str());
        s.bind(1, from).bind(2, to);
        return s.step() ? static_cast<uint64_t>(s.int_at(0)) : 0;
    };
    if (!apply) {
        r.removed = count(orphan);
        r.kept = count("1 OR ?1 OR ?2");
        return;
    }
    delete_in_batches(db, orphan, [&](Stmt &del) { del.bind(1, from).bind(2, to); }, r);
    r.kept = count("1 OR ?1 OR ?2");
}

}  // namespace jfp
