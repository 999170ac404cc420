// The closest names to a name that is nowhere, found without reading every name: a symmetric-deletion
// index (every name's variants with up to two characters deleted, built with the module index, off the
// submit path). Two strings within edit distance k share a variant with at most k deletions each, so the
// candidates are the names whose variants the query's variants meet; each is then measured exactly. The
// work a query does is bounded by its own length and by kMaxCandidates, whatever the index holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jfp {

// Edit distance (insert, delete, replace, swap of neighbours; letters compared case-blind), or limit + 1
// once it is known to exceed limit.
size_t name_distance(std::string_view a, std::string_view b, size_t limit);

// How far a query may be from a name it suggests: 1 for names of up to 4 characters, else 2.
inline size_t near_limit(std::string_view query) { return query.size() <= 4 ? 1 : 2; }

class NearNames {
public:
    // Names longer than kMaxLength are not suggested (no module name is that long; the index stays small).
    static constexpr size_t kMaxLength = 40;
    // At most this many distinct names are measured per query; beyond it the query stops (a crafted name
    // whose variants meet many names costs no more than this).
    static constexpr size_t kMaxCandidates = 256;

    NearNames() = default;
    explicit NearNames(const std::vector<std::string> &names);  // names: sorted; suggestions keep that order

    // Up to `most` names within near_limit(query), nearest first, ties in the names' order.
    std::vector<std::string> closest(std::string_view query, size_t most = 3) const;
    size_t variants() const { return ids_.size(); }

private:
    struct Slot {
        uint64_t key = 0;  // 0: empty
        uint32_t begin = 0, end = 0;
    };
    std::vector<std::string> names_;
    std::vector<uint32_t> ids_;  // name ids grouped by variant (Slot::begin .. end)
    std::vector<Slot> slots_;    // open addressing, power of two
    uint64_t mask_ = 0;
    const Slot *find(uint64_t key) const;
};

}  // namespace jfp
