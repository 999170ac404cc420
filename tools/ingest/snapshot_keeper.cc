#include "tools/ingest/snapshot_keeper.h"

#include <string>
#include <chrono>
#include <cstdio>
#include <exception>

#include "model/snapshot/snapshot_file.h"
#include "model/snapshot/snapshot_resume.h"
#include "model/util/text.h"

namespace jfp {

void SnapshotKeeper::after_change(const char *who) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (done_once_ && now - last_ < interval_) return;
    try {
        auto t0 = now;
        SnapshotRefresh r = refresh_snapshot(store_);
        last_ = std::chrono::steady_clock::now();
        done_once_ = true;
        if (quiet_ || !r.written) return;
        double s = std::chrono::duration<double>(last_ - t0).count();
        std::string how = r.incremental ? "the last one and " + std::to_string(r.applied) + " changed jobs"
                          : r.first     ? std::string("the whole store")
                                        : "the whole store, as the last one could not be used: " + r.why_replayed;
        std::printf("%s: history snapshot %s written from %s: %llu jobs, %.1f MiB, %.1f s\n", who,
                    snapshot_path_for(store_).c_str(), printable(how).c_str(), static_cast<unsigned long long>(r.jobs),
                    static_cast<double>(r.bytes) / (1 << 20), s);
    } catch (const std::exception &e) {
        last_ = std::chrono::steady_clock::now();
        done_once_ = true;
        std::fprintf(stderr,
                     "%s: warning: the history snapshot %s was not written (%s); the store is complete; "
                     "slurmctld's next start uses the older snapshot and more changes, or replays the store (slower)\n",
                     who, snapshot_path_for(store_).c_str(), printable(e.what(), std::string::npos, true).c_str());
    }
}

}  // namespace jfp
