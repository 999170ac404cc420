#include "model/archive/script_head_pool.h"

#include <cstdlib>

namespace jfp {

ScriptHeadPool::ScriptHeadPool(size_t max_in_use, size_t max_idle) : max_in_use_(max_in_use), max_idle_(max_idle) {
    idle_.reserve(max_idle);
}

ScriptHeadPool::~ScriptHeadPool() {
    for (char *b : idle_) std::free(b);
}

char *ScriptHeadPool::acquire() {
    if (in_use_.fetch_add(1, std::memory_order_relaxed) >= max_in_use_) {
        in_use_.fetch_sub(1, std::memory_order_relaxed);
        return nullptr;
    }
    char *b = nullptr;
    if (mu_.try_lock()) {
        if (!idle_.empty()) {
            b = idle_.back();
            idle_.pop_back();
        }
        mu_.unlock();
    }
    if (!b) b = static_cast<char *>(std::malloc(block_size()));
    if (!b) in_use_.fetch_sub(1, std::memory_order_relaxed);
    return b;
}

void ScriptHeadPool::release(char *block) {
    if (!block) return;
    in_use_.fetch_sub(1, std::memory_order_relaxed);
    if (mu_.try_lock()) {
        if (idle_.size() < max_idle_) {
            idle_.push_back(block);
            block = nullptr;
        }
        mu_.unlock();
    }
    std::free(block);
}

}  // namespace jfp
