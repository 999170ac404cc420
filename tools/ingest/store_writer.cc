#include "tools/ingest/store_writer.h"

namespace jfp {

StoreWriter::StoreWriter(HistoryStore &store, const std::unordered_map<std::string, uint64_t> *fingerprints)
    : store_(store), fingerprints_(fingerprints) {
    batch_.reserve(kBatch);
    thread_ = std::thread([this] { run(); });
}

StoreWriter::~StoreWriter() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        done_ = true;
        queue_.clear();
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void StoreWriter::put(JobRecord &&job) { push_row(Row(std::in_place_index<0>, std::move(job))); }
void StoreWriter::put(StepInfo &&step) { push_row(Row(std::in_place_index<1>, std::move(step))); }

void StoreWriter::push_row(Row &&row) {
    batch_.push_back(std::move(row));
    if (batch_.size() >= kBatch) flush();
}

void StoreWriter::flush() {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return queue_.size() < kMaxBatches || error_; });
    if (error_) std::rethrow_exception(error_);
    queue_.push_back(std::move(batch_));
    batch_ = {};
    batch_.reserve(kBatch);
    lk.unlock();
    cv_.notify_all();
}

void StoreWriter::finish() {
    if (!batch_.empty()) flush();
    {
        std::lock_guard<std::mutex> lk(mu_);
        done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(error_);
}

void StoreWriter::run() {
    for (;;) {
        std::vector<Row> rows;
        {
            std::unique_lock<std::mutex> lk(mu_);
            cv_.wait(lk, [&] { return !queue_.empty() || done_; });
            if (queue_.empty()) return;
            rows = std::move(queue_.front());
            queue_.pop_front();
        }
        cv_.notify_all();
        try {
            for (auto &r : rows) {
                if (r.index() == 0) {
                    JobRecord &j = std::get<0>(r);
                    if (fingerprints_ && !j.jfp_token.empty())
                        if (auto it = fingerprints_->find(j.jfp_token); it != fingerprints_->end()) j.script_fingerprint = it->second;
                    store_.put_job(j);
                }
                else store_.put_step(std::get<1>(r));
            }
        } catch (...) {
            std::lock_guard<std::mutex> lk(mu_);
            error_ = std::current_exception();
            queue_.clear();
            cv_.notify_all();
            return;
        }
    }
}

}  // namespace jfp
