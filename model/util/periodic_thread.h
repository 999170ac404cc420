// A background thread that runs a task every interval, or sooner when kicked. Its first run can be waited
// for, within a limit (slurmctld's start waits for the history that way). kick() takes no lock: it is called
// on slurmctld's submit path, and a thread preempted while holding a mutex would stall it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace jfp {

class PeriodicThread {
public:
    // first: true on the first run, which starts at once.
    using Task = std::function<void(bool first)>;
    using Interval = std::function<std::chrono::milliseconds()>;

    PeriodicThread() = default;
    PeriodicThread(const PeriodicThread &) = delete;
    PeriodicThread &operator=(const PeriodicThread &) = delete;
    ~PeriodicThread() { stop(); }

    // name: as top -H shows it (15 characters). The task must not throw.
    void start(std::string name, Task task, Interval interval);
    // true when the first run ended within limit.
    bool wait_first(std::chrono::duration<double> limit);
    // Run the task now. One wake until the thread takes it; a wake landing between its look and its wait is
    // lost, and the task runs at the interval instead.
    void kick() {
        if (!kick_.exchange(true)) wake_.notify_one();
    }
    void stop();  // joins; the task is not run again
    // At exit: stops as stop() does, but waits for a task in progress (a history load) at most limit, then
    // leaves the thread detached. true: the thread has ended.
    bool stop_within(std::chrono::milliseconds limit);

private:
    void loop(const std::string &name);

    Task task_;
    Interval interval_;
    std::atomic<bool> stop_{false}, kick_{false}, ended_{false};
    std::mutex wake_mu_;
    std::condition_variable wake_;
    std::mutex first_mu_;
    std::condition_variable first_cv_;
    bool first_done_ = false;
    std::thread thread_;
};

}  // namespace jfp
