// Blocks of kScriptScanBytes that carry job-script heads from submit threads to the feature-log writer.
// A malloc'd head freed on another thread cost the submit path ~1.8 us (bench/hotpath); a block taken
// from and returned to this pool costs the copy and two queue operations. Blocks in use are capped (the
// bound on what a backed-up queue can pin in slurmctld); a few idle ones are kept, the rest freed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "bounded_queue.h"
#include "script_traits.h"

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
    size_t max_in_use_;
    std::atomic<size_t> in_use_{0};
    BoundedQueue<char *> idle_;
};

}  // namespace jfp
