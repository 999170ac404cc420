// Names the calling thread so that `top -H -p $(pidof slurmctld)`, gdb and perf tell jfp's background
// threads from slurmctld's own. Linux allows 15 characters; longer names are cut.
#pragma once

#include <pthread.h>

#include <algorithm>

#include <string>

namespace jfp {

inline void name_this_thread(const char *name) {
    std::string n(name);
    n.resize(std::min<size_t>(n.size(), 15));
    pthread_setname_np(pthread_self(), n.c_str());
}

}  // namespace jfp
