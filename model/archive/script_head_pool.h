// Blocks of kScriptScanBytes that carry job-script heads from submit threads to the feature-log writer.
// A malloc'd head freed on another thread cost the submit path ~1.8 us (bench/hotpath); a block taken
// from and returned to this pool costs the copy. Blocks in use are capped (the bound on what a backed-up
// queue can pin in slurmctld); a few idle ones are kept, the rest freed. Idle blocks are reused last in,
// first out: the block freed last is the one most likely still in cache, and the copy into a cold block
// was most of what deferring a scan cost (bench/hotpath, docs/performance.md).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "model/script/script_traits.h"

namespace jfp {

class ScriptHeadPool {
public:
    ScriptHeadPool(size_t max_in_use, size_t max_idle);
    ~ScriptHeadPool();
    ScriptHeadPool(const ScriptHeadPool &) = delete;
    ScriptHeadPool &operator=(const ScriptHeadPool &) = delete;

    // A block of block_size() bytes, or nullptr when max_in_use are taken. Never blocks.
    char *acquire();
    void release(char *block);

    static constexpr size_t block_size() { return kScriptScanBytes; }
    size_t in_use() const { return in_use_.load(std::memory_order_relaxed); }
    size_t max_in_use() const { return max_in_use_; }

private:
    // One cache line for everything a submission touches here.
    alignas(64) std::atomic<size_t> in_use_{0};
    std::mutex mu_;  // only ever try_lock'ed: a busy stack means malloc or free instead, never a wait
    std::vector<char *> idle_;  // capacity max_idle, reserved: pushing never allocates
    size_t max_in_use_, max_idle_;
};

}  // namespace jfp
