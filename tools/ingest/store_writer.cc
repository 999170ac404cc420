#include "tools/ingest/store_writer.h"

namespace jfp {

StoreWriter::StoreWriter(HistoryStore &store, const std::unordered_map<std::string, uint64_t> *fingerprints)
    : store_(store), fingerprints_(fingerprints), pipe_([this](std::vector<Row> &rows) { write(rows); }) {}

void StoreWriter::write(std::vector<Row> &rows) {
    for (auto &r : rows) {
        if (r.index() == 1) {
            store_.put_step(std::get<1>(r));
            continue;
        }
        JobRecord &j = std::get<0>(r);
        if (fingerprints_ && !j.jfp_token.empty())
            if (auto it = fingerprints_->find(j.jfp_token); it != fingerprints_->end()) j.script_fingerprint = it->second;
        store_.put_job(j);
    }
}

}  // namespace jfp
