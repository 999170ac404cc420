// Blocks of kScriptScanBytes that carry job-script heads from submit threads to the feature-log writer.
// A malloc'd head freed on another thread cost the submit path ~1.8 us (bench/hotpath); a block taken
// from and returned to this pool costs the copy. Blocks in use are capped (the bound on what a backed-up
// queue can pin in slurmctld). Every returned block is kept while a burst lasts (a fresh one is a malloc
// and page faults on the submit path: a fifth of all heads in bench/hotpath when only 128 were kept);
// trim(), from the writer once it is quiet, frees all but max_idle. Idle blocks are reused last in,
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
    // Frees the idle blocks past max_idle (not on the submit path: it waits for the lock).
    void trim();

    static constexpr size_t block_size() { return kScriptScanBytes; }
    size_t in_use() const { return in_use_.load(std::memory_order_relaxed); }
    size_t max_in_use() const { return max_in_use_; }
    size_t idle() const;

private:
    // One cache line for everything a submission touches here.
    alignas(64) std::atomic<size_t> in_use_{0};
    mutable std::mutex mu_;  // only try_lock'ed on the submit path: a busy stack means malloc or free instead
    std::vector<char *> idle_;  // capacity max_in_use, reserved: pushing never allocates
    size_t max_in_use_, max_idle_;
};

}  // namespace jfp
