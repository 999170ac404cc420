// Retention for the history store: `jfp prune store`. A separate file from the ingest and read paths
// because it is the one operation that deletes, and the plugin must learn of it (the prunes table).
#include <algorithm>
#include <optional>
#include <string>

#include "model/store/history_store.h"
#include "model/store/store_schema.h"

namespace jfp {

namespace {
const char *const kPrunesTable =
    "CREATE TABLE IF NOT EXISTS prunes (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, ended_before INTEGER NOT NULL, "
    "jobs INTEGER NOT NULL, last_seq INTEGER NOT NULL)";
}  // namespace

int64_t HistoryStore::prune_count() const {
    if (!has_prunes_table(db_)) return 0;
    Stmt s(db_, "SELECT count(*) FROM prunes");
    return s.step() ? s.int_at(0) : 0;
}

HistoryStore::PruneCount HistoryStore::prune(int64_t ended_before, int64_t ingested_before, bool apply) {
    if (apply) require_writable();
    const std::string ended = "user IS NOT NULL AND " + ended_sql() + " AND end_time < ?1";
    const std::string unfinished_older = "user IS NOT NULL AND " + not_ended_sql() + " AND submit < ?1";
    // The newest ingest stays: the record of what the store last took in.
    const char *old_ingests = "SELECT id FROM ingests WHERE started < ?1 AND id < (SELECT max(id) FROM ingests)";
    PruneCount c;
    std::optional<WriteTransaction> tx;  // counting alone writes nothing
    if (apply) tx.emplace(db_);
    {
        Stmt s(db_, ("SELECT coalesce(sum(" + ended + "), 0), coalesce(sum(user IS NOT NULL AND NOT (" + ended +
                     ")), 0), coalesce(sum(" + unfinished_older + "), 0) FROM jobs")
                        .c_str());
        s.bind(1, ended_before);
        if (s.step()) {
            c.jobs = static_cast<uint64_t>(s.int_at(0));
            c.kept = static_cast<uint64_t>(s.int_at(1));
            c.unfinished_older = static_cast<uint64_t>(s.int_at(2));
        }
    }
    if (c.unfinished_older) {
        Stmt s(db_, ("SELECT coalesce(job_id, job_key) FROM jobs WHERE " + unfinished_older + " ORDER BY submit LIMIT 5").c_str());
        s.bind(1, ended_before);
        while (s.step()) c.unfinished_examples.push_back(s.text_at(0));
    }
    {
        Stmt s(db_, ("SELECT count(*) FROM (SELECT user FROM jobs WHERE user IS NOT NULL GROUP BY user HAVING "
                     "min(" + ended + ") = 1)").c_str());
        s.bind(1, ended_before);
        if (s.step()) c.users_emptied = static_cast<uint64_t>(s.int_at(0));
    }
    {
        Stmt s(db_, (std::string("SELECT count(*) FROM (") + old_ingests + ")").c_str());
        s.bind(1, ingested_before);
        if (s.step()) c.ingests = static_cast<uint64_t>(s.int_at(0));
    }
    if (apply) {
        db_.exec(kPrunesTable);
        const int64_t last_seq = std::max(last_change(), highest_pruned_seq(db_));
        Stmt del(db_, ("DELETE FROM jobs WHERE " + ended).c_str());
        del.bind(1, ended_before);
        del.run();
        Stmt errs(db_, (std::string("DELETE FROM ingest_errors WHERE ingest_id IN (") + old_ingests + ")").c_str());
        errs.bind(1, ingested_before);
        errs.run();
        Stmt ing(db_, (std::string("DELETE FROM ingests WHERE id IN (") + old_ingests + ")").c_str());
        ing.bind(1, ingested_before);
        ing.run();
        if (c.jobs) {  // the plugin reloads whole on a new row: only when jobs went
            Stmt rec(db_, "INSERT INTO prunes (at, ended_before, jobs, last_seq) VALUES (strftime('%s','now'), ?1, ?2, ?3)");
            rec.bind(1, ended_before).bind(2, static_cast<int64_t>(c.jobs)).bind(3, last_seq);
            rec.run();
        }
        tx->commit();
    }
    return c;
}

void HistoryStore::vacuum() { db_.exec("VACUUM"); }

}  // namespace jfp
