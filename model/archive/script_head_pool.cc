#include "model/archive/script_head_pool.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <iterator>

namespace jfp {

ScriptHeadPool::ScriptHeadPool(size_t max_in_use, size_t max_idle) : max_in_use_(max_in_use), max_idle_(max_idle) {
    idle_.reserve(max_in_use);
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
        // Idle and in use together stay within max_in_use: the cap is the pool's memory bound.
        if (idle_.size() + in_use_.load(std::memory_order_relaxed) < max_in_use_) {
            idle_.push_back(block);
            block = nullptr;
        }
        mu_.unlock();
    }
    std::free(block);
}

void ScriptHeadPool::trim() {
    char *extra[64];
    for (size_t n = 1; n;) {  // a few at a time: the lock is held briefly, and frees happen outside it
        n = 0;
        {
            std::lock_guard<std::mutex> lk(mu_);
            // The oldest returned go first: the recent ones are the likeliest in cache.
            n = std::min(std::size(extra), idle_.size() > max_idle_ ? idle_.size() - max_idle_ : size_t{0});
            std::copy_n(idle_.begin(), n, extra);
            idle_.erase(idle_.begin(), idle_.begin() + static_cast<std::ptrdiff_t>(n));
        }
        for (size_t i = 0; i < n; ++i) std::free(extra[i]);
    }
}

size_t ScriptHeadPool::idle() const {
    std::lock_guard<std::mutex> lk(mu_);
    return idle_.size();
}

}  // namespace jfp
