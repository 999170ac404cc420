#include "model/store/ingest_records.h"

#include <random>

namespace jfp {

int64_t start_ingest_record(const Db &db, const std::string &source) {
    Stmt s(db, "INSERT INTO ingests (started, source, nonce) VALUES (strftime('%s','now'), ?1, ?2)");
    s.bind(1, std::string_view(source));
    std::random_device rd;
    s.bind(2, static_cast<int64_t>(((static_cast<uint64_t>(rd()) << 32) ^ rd()) >> 1));
    s.run();
    return sqlite3_last_insert_rowid(db.get());
}

void finish_ingest_record(const Db &db, int64_t id, const SacctReadReport &r) {
    if (!r.bad_lines.empty()) {
        Stmt s(db, "INSERT INTO ingest_errors (ingest_id, line, last_line, reason, text) VALUES (?1, ?2, ?3, ?4, ?5)");
        for (const auto &b : r.bad_lines) {
            s.bind(1, id).bind(2, static_cast<int64_t>(b.line)).bind(3, static_cast<int64_t>(b.last_line));
            s.bind(4, std::string_view(b.reason)).bind(5, std::string_view(b.text));
            s.run();
        }
    }
    Stmt u(db, "UPDATE ingests SET lines=?2, job_rows=?3, step_rows=?4, bad=?5, recovered_pipes=?6, "
               "joined_newlines=?7 WHERE id=?1");
    u.bind(1, id).bind(2, static_cast<int64_t>(r.lines)).bind(3, static_cast<int64_t>(r.job_rows));
    u.bind(4, static_cast<int64_t>(r.step_rows)).bind(5, static_cast<int64_t>(r.bad));
    u.bind(6, static_cast<int64_t>(r.recovered_pipes)).bind(7, static_cast<int64_t>(r.joined_newlines));
    u.run();
}

std::vector<BadLine> ingest_bad_lines(const Db &db, int64_t ingest_id) {
    std::vector<BadLine> out;
    Stmt s(db, "SELECT line, last_line, reason, text FROM ingest_errors WHERE ingest_id=?1 ORDER BY line");
    s.bind(1, ingest_id);
    while (s.step()) {
        BadLine b;
        b.line = static_cast<uint64_t>(s.int_at(0));
        b.last_line = static_cast<uint64_t>(s.int_at(1));
        b.reason = s.text_at(2);
        b.text = s.text_at(3);
        out.push_back(std::move(b));
    }
    return out;
}

namespace {
// A store made before nonces has none in its older records (read-only: none at all).
std::string ingest_mark(const Db &db, const std::string &where, const std::string *id = nullptr) {
    Stmt c(db, "SELECT count(*) FROM pragma_table_info('ingests') WHERE name = 'nonce'");
    const bool nonce = c.step() && c.int_at(0) > 0;
    const std::string sql = std::string("SELECT id, started, ") + (nonce ? "coalesce(nonce, '')" : "''") + ", source FROM ingests " + where;
    Stmt s(db, sql.c_str());
    if (id) s.bind(1, std::string_view(*id));
    if (!s.step()) return std::string();
    return std::to_string(s.int_at(0)) + "|" + std::to_string(s.int_at(1)) + "|" + s.text_at(2) + "|" + s.text_at(3);
}
}  // namespace

std::string oldest_ingest_mark(const Db &db) { return ingest_mark(db, "ORDER BY id LIMIT 1"); }

std::string newest_ingest_mark(const Db &db) { return ingest_mark(db, "ORDER BY id DESC LIMIT 1"); }

bool has_ingest_mark(const Db &db, const std::string &mark) {
    std::string id = mark.substr(0, mark.find('|'));
    if (id.empty()) return false;
    return ingest_mark(db, "WHERE id = CAST(?1 AS INTEGER)", &id) == mark;
}

}  // namespace jfp
