#include "model/store/queue_tokens.h"

namespace jfp {

void save_queue_tokens(Db &db, const std::vector<std::pair<std::string, std::string>> &tokens) {
    WriteTransaction tx(db, WriteTransaction::Lock::Deferred);
    db.exec("DELETE FROM queue_tokens");
    Stmt ins(db, "INSERT OR REPLACE INTO queue_tokens (job_id, token, seen_at) VALUES (?1, ?2, strftime('%s','now'))");
    for (const auto &[id, tok] : tokens) {
        ins.bind(1, std::string_view(id)).bind(2, std::string_view(tok));
        ins.run();
    }
    tx.commit();
}

std::vector<std::pair<std::string, std::string>> load_queue_tokens(const Db &db) {
    std::vector<std::pair<std::string, std::string>> out;
    Stmt s(db, "SELECT job_id, token FROM queue_tokens");
    while (s.step()) out.emplace_back(s.text_at(0), s.text_at(1));
    return out;
}

}  // namespace jfp
