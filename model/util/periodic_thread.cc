#include "model/util/periodic_thread.h"

#include "model/util/background_thread.h"

namespace jfp {

void PeriodicThread::start(std::string name, Task task, Interval interval) {
    task_ = std::move(task);
    interval_ = std::move(interval);
    thread_ = std::thread([this, name = std::move(name)] {
        loop(name);
        ended_.store(true);
    });
}

void PeriodicThread::loop(const std::string &name) {
    name_this_thread(name.c_str());
    task_(true);
    {
        std::lock_guard<std::mutex> lk(first_mu_);
        first_done_ = true;
    }
    first_cv_.notify_all();
    while (!stop_.load()) {
        {
            std::unique_lock<std::mutex> lk(wake_mu_);
            wake_.wait_for(lk, interval_(), [&] { return stop_.load() || kick_.exchange(false); });
        }
        if (stop_.load()) break;
        task_(false);
    }
}

bool PeriodicThread::wait_first(std::chrono::duration<double> limit) {
    std::unique_lock<std::mutex> lk(first_mu_);
    return first_cv_.wait_for(lk, limit, [&] { return first_done_; });
}

void PeriodicThread::stop() {
    {
        std::lock_guard<std::mutex> lk(wake_mu_);  // a wait starting now sees stop_
        stop_.store(true);
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

bool PeriodicThread::stop_within(std::chrono::milliseconds limit) {
    {
        std::lock_guard<std::mutex> lk(wake_mu_);
        stop_.store(true);
    }
    wake_.notify_all();
    return join_within(thread_, ended_, limit);
}

}  // namespace jfp
