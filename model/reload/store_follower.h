// The history store as the plugin follows it: loaded whole when its file is replaced (from its snapshot file
// when it has a usable one), brought up to date in place when another connection (jfp ingest) commits, and
// tried again every kRetry while it fails to load.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "model/files/file_check.h"
#include "model/files/sqlite_util.h"
#include "model/reload/history_lock.h"
#include "model/reload/published_state.h"
#include "model/util/log.h"

namespace jfp {

struct StoreFollow {
    bool changed = false;       // next changed: publish it
    bool loaded_whole = false;  // loaded whole (jfp_loads_total{what="history"})
    bool updated = false;       // an ingest's changes applied in place
    std::string line;           // to log once next is published (a test, or an admin, may submit at once)
};

class StoreFollower {
public:
    StoreFollower(HistoryLock &lock, std::vector<uid_t> trusted_uids) : lock_(lock), trusted_(std::move(trusted_uids)) {}
    // Looks at the store at path; when load is true and it was replaced, committed to, or failed and is due a
    // retry, brings next's history up to date.
    StoreFollow follow(const std::string &path, bool load, PublishedState &next);
    void tick() { faults_.tick(); }

    // A store that failed to load is tried again this often even when its file looks unchanged (a remount, a
    // fixed permission or lock): seldom enough that a slow failure costs the host little.
    static constexpr std::chrono::seconds kRetry{10};

private:
    bool update_in_place(PublishedState &next, const std::string &path, StoreFollow &out);
    std::string load_whole(PublishedState &next, const std::string &path);
    std::vector<std::pair<uint32_t, std::string>> unknown_user_uids(const HistorySnapshot &snap);

    HistoryLock &lock_;
    const std::vector<uid_t> trusted_;
    FileSig sig_;
    std::string path_loaded_;
    // A connection kept open to the store: PRAGMA data_version changes when another connection commits. The
    // store's files cannot tell: merely reading a WAL database touches its -wal and -shm.
    std::unique_ptr<Db> watch_;
    int64_t data_version_ = -1;
    std::string last_error_;
    FaultLog faults_{60};
    std::chrono::steady_clock::time_point tried_{};
    std::unordered_set<std::string> passwd_tried_;  // user names looked up in the password database
};

}  // namespace jfp
