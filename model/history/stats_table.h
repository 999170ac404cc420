// The history index's storage: a 64-bit key (already a well-mixed hash, see history.cc) to its
// HistoryStats. Open addressing over slots of key and value number, four to a cache line; values in
// fixed chunks that never move, so a HistoryView's pointers stay valid while keys are added.
// Why not std::unordered_map: a lookup there is two dependent cache misses (bucket, then node), five
// keys per submission, ten misses in a row on a cold slurmctld thread (bench/hotpath measured the
// lookup at 1,600 cycles cold, 300 warm). Here a submission prefetches all its slots, then all its
// values: two rounds of misses that overlap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "model/history/history_stats.h"

namespace jfp {

class StatsTable {
public:
    StatsTable() = default;
    StatsTable(const StatsTable &o);
    StatsTable &operator=(const StatsTable &o);
    StatsTable(StatsTable &&o) noexcept { *this = std::move(o); }
    StatsTable &operator=(StatsTable &&o) noexcept;

    // The stats under key, added (empty) if it is not there yet.
    HistoryStats &operator[](uint64_t key);
    const HistoryStats *find(uint64_t key) const;
    // Asks the cache for where key's slot is; find() on it soon after does not wait for memory.
    void prefetch_slot(uint64_t key) const;
    // Index of key's value (for prefetch_value), or kNone.
    uint32_t locate(uint64_t key) const;
    void prefetch_value(uint32_t index) const;
    const HistoryStats &value(uint32_t index) const { return chunks_[index >> kChunkBits][index & (kChunk - 1)]; }

    size_t size() const { return size_; }
    size_t slot_count() const { return slots_.size(); }
    // Room for n keys without growing.
    void reserve(size_t n);

    // Growing in two steps, for a table that readers share under a lock while one thread adds keys.
    // rehashed_for(n) only reads this table: it builds a slot array with room for n keys (none when
    // there is room already) while readers go on. adopt() swaps it in under the caller's lock, and does
    // nothing if keys were added in between. Rehashing 1.5M keys takes ~100 ms; a swap does not.
    struct Rehash;
    Rehash rehashed_for(size_t n) const;
    void adopt(Rehash &&r);
    // Same keys with equal stats (order of insertion does not matter).
    bool operator==(const StatsTable &o) const;

    static constexpr uint32_t kNone = UINT32_MAX;

private:
    friend struct HistoryCodec;  // the snapshot file (snapshot_file.cc) writes and checks the raw table
    struct Slot {
        uint64_t key = 0;
        uint32_t index = kNone;  // kNone: empty
    };
    static constexpr unsigned kChunkBits = 12;
    static constexpr size_t kChunk = size_t(1) << kChunkBits;
    void grow(size_t min_slots);
    size_t home(uint64_t key) const { return static_cast<size_t>(key) & (slots_.size() - 1); }

    static size_t slots_for(size_t keys);
    static void place_all(const std::vector<Slot> &from, std::vector<Slot> &to);

    std::vector<Slot> slots_;  // size a power of two, at most 3/4 full
    std::vector<std::unique_ptr<HistoryStats[]>> chunks_;
    size_t size_ = 0;

public:
    struct Rehash {
        std::vector<Slot> slots;  // empty: nothing to adopt
        size_t keys = 0;          // the table's size when they were built
        explicit operator bool() const { return !slots.empty(); }
    };
};

}  // namespace jfp
