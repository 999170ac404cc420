// Hands items in batches to one consumer thread, in order, through a small bounded queue: the producer
// waits while kMaxBatches wait, so memory stays bounded however large the export. `jfp ingest` runs two:
// parsing -> SQLite (StoreWriter) and SQLite -> the history snapshot built from the rows (ObservedRows).
// The consumer's first exception stops it; the producer's next put() or finish() rethrows it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace jfp {

template <class T>
class BatchPipe {
public:
    static constexpr size_t kBatch = 1024;
    static constexpr size_t kMaxBatches = 8;

    explicit BatchPipe(std::function<void(std::vector<T> &)> consume) : consume_(std::move(consume)) {
        batch_.reserve(kBatch);
        thread_ = std::thread([this] { run(); });
    }
    // Drops what was not consumed and joins (call finish() to have it consumed).
    ~BatchPipe() {
        {
            std::lock_guard<std::mutex> lk(mu_);
            done_ = true;
            queue_.clear();
        }
        cv_.notify_all();
        if (thread_.joinable()) thread_.join();
    }
    BatchPipe(const BatchPipe &) = delete;
    BatchPipe &operator=(const BatchPipe &) = delete;

    void put(T &&item) {
        batch_.push_back(std::move(item));
        if (batch_.size() >= kBatch) flush();
    }
    // Consumes what is queued, stops the thread, and rethrows the consumer's error if there was one.
    void finish() {
        if (!batch_.empty()) flush();
        {
            std::lock_guard<std::mutex> lk(mu_);
            done_ = true;
        }
        cv_.notify_all();
        if (thread_.joinable()) thread_.join();
        if (error_) std::rethrow_exception(error_);
    }

private:
    void flush() {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return queue_.size() < kMaxBatches || error_; });
        if (error_) std::rethrow_exception(error_);
        queue_.push_back(std::move(batch_));
        batch_ = {};
        batch_.reserve(kBatch);
        lk.unlock();
        cv_.notify_all();
    }
    void run() {
        for (;;) {
            std::vector<T> items;
            {
                std::unique_lock<std::mutex> lk(mu_);
                cv_.wait(lk, [&] { return !queue_.empty() || done_; });
                if (queue_.empty()) return;
                items = std::move(queue_.front());
                queue_.pop_front();
            }
            cv_.notify_all();
            try {
                consume_(items);
            } catch (...) {
                std::lock_guard<std::mutex> lk(mu_);
                error_ = std::current_exception();
                queue_.clear();
                cv_.notify_all();
                return;
            }
        }
    }

    std::function<void(std::vector<T> &)> consume_;
    std::vector<T> batch_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::vector<T>> queue_;
    bool done_ = false;
    std::exception_ptr error_;
    std::thread thread_;  // last: started once the rest is built
};

}  // namespace jfp
