#include "model/store/end_order_replay.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "model/store/index_fields.h"
#include "model/store/store_schema.h"

namespace jfp {

ReplayOrder replay_order(std::vector<EndKey> keys) {
    ReplayOrder out;
    const size_t n = keys.size();
    if (n >= std::numeric_limits<uint32_t>::max()) throw std::length_error("more ended jobs than a replay order can number");
    // Sorted with their row number beside them, not through an index: an indirect sort misses the cache each compare.
    for (size_t i = 0; i < n; ++i) keys[i].row = static_cast<uint32_t>(i);
    std::sort(keys.begin(), keys.end(), [](const EndKey &a, const EndKey &b) {
        if (a.end != b.end) return a.end < b.end;
        if (a.seq != b.seq) return a.seq < b.seq;
        return a.row < b.row;
    });
    out.rank.resize(n);
    for (size_t place = 0; place < n; ++place) out.rank[keys[place].row] = static_cast<uint32_t>(place);
    keys = std::vector<EndKey>();
    // The read replayed as replay_ended_rows does it, to size its ring: a row waits from its read until
    // every place before it is read.
    std::vector<bool> read(n);
    size_t next = 0, highest = 0;
    for (size_t i = 0; i < n; ++i) {
        const size_t r = out.rank[i];
        read[r] = true;
        highest = std::max(highest, r);
        out.window = std::max(out.window, highest - next + 1);
        while (next < n && read[next]) ++next;
    }
    return out;
}

namespace {

std::string ended_rows_sql(bool script_fp) {
    return std::string("SELECT ") + kIndexOnlyColumns + ", " + (script_fp ? "script_fp" : "NULL") +
           " FROM jobs WHERE user IS NOT NULL AND " + ended_sql() + " ORDER BY rowid";
}

std::runtime_error changed_under(const Db &db) {
    return std::runtime_error(db.path() + ": the ended jobs changed between the two reads of one snapshot load "
                              "(a bug: both run in one read transaction); load the history again");
}

}  // namespace

void replay_ended_rows(const Db &db, bool script_fp, const ReplayOrder &order,
                       const std::function<void(const JobRecord &)> &fn) {
    const size_t n = order.rank.size();
    if (n == 0) return;
    const size_t w = std::max<size_t>(order.window, 1);
    // A slot's strings keep their capacity from row to row: no allocation per row once the ring is warm.
    std::vector<JobRecord> ring(w);
    std::vector<uint32_t> held(w, std::numeric_limits<uint32_t>::max());  // the place each slot holds
    Stmt s(db, ended_rows_sql(script_fp).c_str());
    size_t i = 0, next = 0;
    while (s.step()) {
        if (i == n) throw changed_under(db);
        const uint32_t r = order.rank[i++];
        if (r - next >= w) throw changed_under(db);
        // The ring is megabytes: fetch the next row's slot while SQLite reads that row.
        if (i < n) __builtin_prefetch(&ring[order.rank[i] % w], 1);
        read_index_fields(s, kIndexOnly, ring[r % w]);
        held[r % w] = r;
        while (next < n && held[next % w] == next) {
            if (next + 1 < n) __builtin_prefetch(&ring[(next + 1) % w]);
            fn(ring[next++ % w]);
        }
    }
    if (i != n || next != n) throw changed_under(db);
}

}  // namespace jfp
