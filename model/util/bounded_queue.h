// A bounded multi-producer multi-consumer queue (Dmitry Vyukov's array queue): push never blocks and
// fails when full, so slurmctld's submit threads can hand work to a background thread without waiting.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>

namespace jfp {

template <class T>
class BoundedQueue {
public:
    // capacity is rounded up to a power of two; 0 makes a queue that refuses everything.
    explicit BoundedQueue(size_t capacity) {
        size_t c = 1;
        while (c < capacity) c <<= 1;
        cap_ = capacity == 0 ? 0 : c;
        if (cap_) {
            cells_.reset(new Cell[cap_]);
            for (size_t i = 0; i < cap_; ++i) cells_[i].seq.store(i, std::memory_order_relaxed);
        }
    }
    BoundedQueue(const BoundedQueue &) = delete;
    BoundedQueue &operator=(const BoundedQueue &) = delete;

    bool try_push(T &&v) {
        return try_push_with([&v](T &cell) { cell = std::move(v); });
    }

    // Like try_push, but fill(T &) writes the value into its cell in place (it must set all of it): a
    // large T is written once instead of built, then moved.
    template <class Fill>
    bool try_push_with(Fill &&fill) {
        if (cap_ == 0) return false;
        size_t pos = enq_.load(std::memory_order_relaxed);
        for (;;) {
            Cell &c = cells_[pos & (cap_ - 1)];
            size_t seq = c.seq.load(std::memory_order_acquire);
            intptr_t dif = static_cast<intptr_t>(seq) - static_cast<intptr_t>(pos);
            if (dif == 0) {
                if (enq_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
                    fill(c.data);
                    c.seq.store(pos + 1, std::memory_order_release);
                    return true;
                }
            } else if (dif < 0) {
                return false;  // full
            } else {
                pos = enq_.load(std::memory_order_relaxed);
            }
        }
    }

    bool try_pop(T &out) {
        if (cap_ == 0) return false;
        size_t pos = deq_.load(std::memory_order_relaxed);
        for (;;) {
            Cell &c = cells_[pos & (cap_ - 1)];
            size_t seq = c.seq.load(std::memory_order_acquire);
            intptr_t dif = static_cast<intptr_t>(seq) - static_cast<intptr_t>(pos + 1);
            if (dif == 0) {
                if (deq_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
                    out = std::move(c.data);
                    c.seq.store(pos + cap_, std::memory_order_release);
                    return true;
                }
            } else if (dif < 0) {
                return false;  // empty
            } else {
                pos = deq_.load(std::memory_order_relaxed);
            }
        }
    }

    size_t capacity() const { return cap_; }

private:
    struct Cell {
        std::atomic<size_t> seq{0};
        T data{};
    };
    std::unique_ptr<Cell[]> cells_;
    size_t cap_ = 0;
    alignas(64) std::atomic<size_t> enq_{0};
    alignas(64) std::atomic<size_t> deq_{0};
};

}  // namespace jfp
