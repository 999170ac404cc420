#include "model/script/near_names.h"

#include <algorithm>
#include <utility>

namespace jfp {

namespace {

// ASCII case folding by table (std::tolower is a call per byte, and the C locale folds ASCII alone anyway).
struct FoldTable {
    unsigned char t[256];
    constexpr FoldTable() : t{} {
        for (int c = 0; c < 256; ++c) t[c] = static_cast<unsigned char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
};
constexpr FoldTable kFold;
inline unsigned char fold(unsigned char c) { return kFold.t[c]; }

// FNV-1a over the folded bytes, skipping the positions in `skip`, then a murmur3 finaliser; never 0 (the
// empty slot).
uint64_t variant_key(std::string_view s, size_t skip1, size_t skip2) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < s.size(); ++i) {
        if (i == skip1 || i == skip2) continue;
        h ^= fold(static_cast<unsigned char>(s[i]));
        h *= 1099511628211ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h ? h : 1;
}

constexpr size_t kNone = static_cast<size_t>(-1);

// Every variant of s with up to k characters deleted (k <= 2), as keys; repeats are left for the caller.
template <class F>
void for_each_variant(std::string_view s, size_t k, F &&f) {
    f(variant_key(s, kNone, kNone));
    if (k < 1) return;
    for (size_t i = 0; i < s.size(); ++i) {
        // Deleting either of two equal neighbours gives the same variant: once is enough.
        if (i > 0 && fold(static_cast<unsigned char>(s[i])) == fold(static_cast<unsigned char>(s[i - 1]))) continue;
        f(variant_key(s, i, kNone));
        if (k < 2) continue;
        for (size_t j = i + 1; j < s.size(); ++j) {
            if (j > i + 1 && fold(static_cast<unsigned char>(s[j])) == fold(static_cast<unsigned char>(s[j - 1]))) continue;
            f(variant_key(s, i, j));
        }
    }
}

}  // namespace

size_t name_distance(std::string_view a, std::string_view b, size_t limit) {
    if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > limit) return limit + 1;
    // Three rows on the stack: both strings are at most a few dozen bytes here (callers cap them).
    constexpr size_t kMax = 2 * NearNames::kMaxLength + 8;
    if (b.size() >= kMax) return limit + 1;
    if (a.size() >= kMax) return limit + 1;
    unsigned char fa[kMax], fb[kMax];  // folded once, not once per cell
    for (size_t i = 0; i < a.size(); ++i) fa[i] = fold(static_cast<unsigned char>(a[i]));
    for (size_t j = 0; j < b.size(); ++j) fb[j] = fold(static_cast<unsigned char>(b[j]));
    uint32_t rows[3][kMax];
    uint32_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<uint32_t>(j);
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = static_cast<uint32_t>(i);
        uint32_t row_min = cur[0];
        for (size_t j = 1; j <= b.size(); ++j) {
            uint32_t best = std::min(prev[j], cur[j - 1]) + 1;
            best = std::min(best, prev[j - 1] + (fa[i - 1] != fb[j - 1]));
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) best = std::min(best, prev2[j - 2] + 1);
            cur[j] = best;
            row_min = std::min(row_min, best);
        }
        if (row_min > limit) return limit + 1;
        std::swap(prev2, prev);
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

NearNames::NearNames(const std::vector<std::string> &names) : names_(names) {
    std::vector<std::pair<uint64_t, uint32_t>> pairs;
    for (uint32_t id = 0; id < names_.size(); ++id) {
        const std::string &n = names_[id];
        if (n.size() > kMaxLength) continue;
        // A query within 2 of a name shares a variant of at most 2 deletions from each.
        for_each_variant(n, 2, [&](uint64_t key) { pairs.emplace_back(key, id); });
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    size_t keys = 0;
    for (size_t i = 0; i < pairs.size(); ++i) keys += i == 0 || pairs[i].first != pairs[i - 1].first;
    size_t cap = 16;
    while (cap < 2 * keys) cap *= 2;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    ids_.reserve(pairs.size());
    for (size_t i = 0; i < pairs.size();) {
        size_t e = i;
        while (e < pairs.size() && pairs[e].first == pairs[i].first) ids_.push_back(pairs[e++].second);
        uint64_t at = pairs[i].first & mask_;
        while (slots_[at].key != 0) at = (at + 1) & mask_;
        slots_[at] = Slot{pairs[i].first, static_cast<uint32_t>(ids_.size() - (e - i)), static_cast<uint32_t>(ids_.size())};
        i = e;
    }
}

const NearNames::Slot *NearNames::find(uint64_t key) const {
    if (slots_.empty()) return nullptr;
    for (uint64_t at = key & mask_;; at = (at + 1) & mask_) {
        const Slot &s = slots_[at];
        if (s.key == key) return &s;
        if (s.key == 0) return nullptr;
    }
}

std::vector<std::string> NearNames::closest(std::string_view query, size_t most) const {
    std::vector<std::string> out;
    if (query.empty() || query.size() > kMaxLength + 2 || names_.empty()) return out;
    const size_t limit = near_limit(query);
    std::vector<uint32_t> candidates;
    bool full = false;
    for_each_variant(query, limit, [&](uint64_t key) {
        if (full) return;
        if (const Slot *s = find(key))
            for (uint32_t i = s->begin; i < s->end && !full; ++i) {
                candidates.push_back(ids_[i]);
                full = candidates.size() >= 4 * kMaxCandidates;
            }
    });
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    if (candidates.size() > kMaxCandidates) candidates.resize(kMaxCandidates);
    std::vector<std::pair<size_t, uint32_t>> scored;
    for (uint32_t id : candidates) {
        size_t d = name_distance(query, names_[id], limit);
        if (d <= limit) scored.emplace_back(d, id);
    }
    std::sort(scored.begin(), scored.end());  // by distance, then by the names' order
    for (size_t i = 0; i < scored.size() && i < most; ++i) out.push_back(names_[scored[i].second]);
    return out;
}

}  // namespace jfp
