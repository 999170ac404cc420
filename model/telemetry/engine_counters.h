// What the plugin counted since slurmctld started: one atomic per counter, indexed by Counter, and one table
// that names each for the metrics file. The submit path adds with relaxed order; readers want totals only.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace jfp {

enum class Counter : uint8_t {
    Evaluated,        // every job_submit call
    Scored,           // a model judged it
    Annotated,
    Warned,
    Rejected,
    Overridden,       // warned only because the user said the override token
    Exempt,
    Unscored,         // no usable model
    CommentFull,      // no room left in the comment for the annotation
    Neutralized,      // a user's comment carried jfp's own markers
    Updated,          // update records judged
    UpdateUnknown,    // update records whose job jfp could not read
    UpdateNotOwner,   // updates by someone other than the owner: slurmctld's to refuse
    UpdateUnjudged,   // update records past their RPC's update_budget_ms, not judged
    HistoryLoads,
    HistoryUpdates,   // an ingest's changes applied in place
    ModelLoads,
    Faults,           // the plugin caught an exception and let the job through
    IgnoredDirectives,
    MissingModules,
    kCount
};
constexpr size_t kCounters = static_cast<size_t>(Counter::kCount);

// How a counter appears in the metrics file: family{label="value"}, or not at all (family null).
struct CounterName {
    Counter counter;
    const char *family;
    const char *label;  // null: the family has no label
    const char *value;
};
// In the order the metrics file writes them; counters the file leaves out are absent.
extern const std::array<CounterName, 15> kCounterNames;

using CounterValues = std::array<uint64_t, kCounters>;

class EngineCounters {
public:
    void add(Counter c, uint64_t n = 1) { v_[static_cast<size_t>(c)].fetch_add(n, std::memory_order_relaxed); }
    uint64_t get(Counter c) const { return v_[static_cast<size_t>(c)].load(std::memory_order_relaxed); }
    CounterValues values() const;

private:
    // Apart from what the submit path only reads: every submission writes here.
    alignas(64) std::array<std::atomic<uint64_t>, kCounters> v_{};
};

}  // namespace jfp
