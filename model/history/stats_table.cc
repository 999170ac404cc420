#include "model/history/stats_table.h"

#include <algorithm>
#include <stdexcept>

namespace jfp {

StatsTable::StatsTable(const StatsTable &o) : slots_(o.slots_), size_(o.size_) {
    for (const auto &c : o.chunks_) {
        chunks_.emplace_back(new HistoryStats[kChunk]);
        std::copy(c.get(), c.get() + kChunk, chunks_.back().get());
    }
}

StatsTable &StatsTable::operator=(const StatsTable &o) {
    if (this != &o) *this = StatsTable(o);
    return *this;
}

StatsTable &StatsTable::operator=(StatsTable &&o) noexcept {
    if (this != &o) {
        slots_ = std::move(o.slots_);
        chunks_ = std::move(o.chunks_);
        size_ = o.size_;
        o.slots_.clear();
        o.chunks_.clear();
        o.size_ = 0;
    }
    return *this;
}

size_t StatsTable::slots_for(size_t keys) {
    size_t want = 16;
    while (want / 4 * 3 < keys) want *= 2;
    return want;
}

void StatsTable::place_all(const std::vector<Slot> &from, std::vector<Slot> &to) {
    const size_t mask = to.size() - 1;
    for (const Slot &s : from) {
        if (s.index == kNone) continue;
        size_t i = static_cast<size_t>(s.key) & mask;
        while (to[i].index != kNone) i = (i + 1) & mask;
        to[i] = s;
    }
}

void StatsTable::reserve(size_t n) {
    size_t want = slots_for(n);
    if (want > slots_.size()) grow(want);
}

void StatsTable::grow(size_t min_slots) {
    size_t n = slots_.empty() ? 16 : slots_.size();
    while (n < min_slots) n *= 2;
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(n, Slot{});
    place_all(old, slots_);
}

StatsTable::Rehash StatsTable::rehashed_for(size_t n) const {
    Rehash r;
    size_t want = slots_for(n);
    if (want <= slots_.size()) return r;
    r.slots.assign(want, Slot{});
    place_all(slots_, r.slots);
    r.keys = size_;
    return r;
}

void StatsTable::adopt(Rehash &&r) {
    if (r && r.keys == size_ && r.slots.size() > slots_.size()) slots_.swap(r.slots);
}

HistoryStats &StatsTable::operator[](uint64_t key) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow(slots_.empty() ? 16 : slots_.size() * 2);
    size_t mask = slots_.size() - 1;
    for (size_t i = home(key);; i = (i + 1) & mask) {
        Slot &s = slots_[i];
        if (s.index != kNone && s.key == key) return chunks_[s.index >> kChunkBits][s.index & (kChunk - 1)];
        if (s.index == kNone) {
            if (size_ >= kNone) throw std::length_error("history index: more than 4e9 keys");
            auto index = static_cast<uint32_t>(size_);
            if ((index & (kChunk - 1)) == 0) chunks_.emplace_back(new HistoryStats[kChunk]);
            s.key = key;
            s.index = index;
            ++size_;
            return chunks_[index >> kChunkBits][index & (kChunk - 1)];
        }
    }
}

uint32_t StatsTable::locate(uint64_t key) const {
    if (slots_.empty()) return kNone;
    size_t mask = slots_.size() - 1;
    for (size_t i = home(key);; i = (i + 1) & mask) {
        const Slot &s = slots_[i];
        if (s.index == kNone) return kNone;
        if (s.key == key) return s.index;
    }
}

const HistoryStats *StatsTable::find(uint64_t key) const {
    uint32_t i = locate(key);
    return i == kNone ? nullptr : &value(i);
}

void StatsTable::prefetch_slot(uint64_t key) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[home(key)]);
}

void StatsTable::prefetch_value(uint32_t index) const {
    if (index == kNone) return;
    const char *p = reinterpret_cast<const char *>(&value(index));
    static_assert(sizeof(HistoryStats) <= 128, "a value spans at most three cache lines");
    __builtin_prefetch(p);
    __builtin_prefetch(p + 64);
    __builtin_prefetch(p + sizeof(HistoryStats) - 1);
}

bool StatsTable::operator==(const StatsTable &o) const {
    if (size_ != o.size_) return false;
    for (const Slot &s : slots_) {
        if (s.index == kNone) continue;
        const HistoryStats *mine = &value(s.index), *theirs = o.find(s.key);
        if (!theirs || !(*mine == *theirs)) return false;
    }
    return true;
}

}  // namespace jfp
