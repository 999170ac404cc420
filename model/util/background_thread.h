// How jfp's background threads present themselves inside slurmctld: named, so that
// `top -H -p $(pidof slurmctld)`, gdb and perf tell them from slurmctld's own (Linux keeps 15
// characters), and, for those doing bulk work, niced, so that on a busy controller the scheduler
// prefers slurmctld's RPC threads: on 2 cores a writer woken to drain its queue preempted the submit
// call in progress for its whole batch (bench/hotpath p99.9).
#pragma once

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

namespace jfp {

inline void name_this_thread(const char *name) {
    std::string n(name);
    n.resize(std::min<size_t>(n.size(), 15));
    pthread_setname_np(pthread_self(), n.c_str());
}

// Linux applies a nice value per thread (the tid); raising it needs no privilege. Failure is harmless.
inline void lower_this_thread_priority(int niceness) {
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), niceness);
}

// A writer's flush: waits until done() (rows written plus rows failed) reaches target, for at most limit
// (milliseconds::max(): no limit). true when it did; false when the limit passed first.
template <class Done>
bool wait_for_count(uint64_t target, Done done, std::chrono::milliseconds limit) {
    const auto deadline = limit == std::chrono::milliseconds::max() ? std::chrono::steady_clock::time_point::max()
                                                                     : std::chrono::steady_clock::now() + limit;
    while (done() < target) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
}

// At slurmctld's exit, which calls no fini: a thread already told to stop is joined once `ended` says its
// function has returned, within limit; past it, it is detached (a hung file system must not hold the exit).
// Joined, it can no longer touch what exit() destroys (static objects of jfp and the libraries it uses).
inline bool join_within(std::thread &t, const std::atomic<bool> &ended, std::chrono::milliseconds limit) {
    if (!t.joinable()) return true;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!ended.load() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (!ended.load()) {
        t.detach();
        return false;
    }
    t.join();
    return true;
}

}  // namespace jfp
