#include "script_head_pool.h"

#include <cstdlib>

namespace jfp {

ScriptHeadPool::ScriptHeadPool(size_t max_in_use, size_t max_idle) : max_in_use_(max_in_use), idle_(max_idle) {}

ScriptHeadPool::~ScriptHeadPool() {
    char *b = nullptr;
    while (idle_.try_pop(b)) std::free(b);
}

char *ScriptHeadPool::acquire() {
    if (in_use_.fetch_add(1, std::memory_order_relaxed) >= max_in_use_) {
        in_use_.fetch_sub(1, std::memory_order_relaxed);
        return nullptr;
    }
    char *b = nullptr;
    if (idle_.try_pop(b)) return b;
    b = static_cast<char *>(std::malloc(block_size()));
    if (!b) in_use_.fetch_sub(1, std::memory_order_relaxed);
    return b;
}

void ScriptHeadPool::release(char *block) {
    if (!block) return;
    in_use_.fetch_sub(1, std::memory_order_relaxed);
    if (!idle_.try_push(std::move(block))) std::free(block);
}

}  // namespace jfp
