#include "model/reload/store_follower.h"

#include <functional>
#include <unordered_map>

#include "jfp_config.h"
#include "model/store/history_store.h"
#include "model/reload/user_names.h"
#include "model/snapshot/snapshot_file.h"
#include "model/snapshot/snapshot_resume.h"
#include "model/util/time_util.h"

#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#endif

namespace jfp {

namespace {

int64_t ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

StoreFollow StoreFollower::follow(const std::string &path, bool load, PublishedState &next) {
    StoreFollow out;
    const FileSig ss = file_sig(path);
    const bool replaced = ss.exists != sig_.exists || ss.inode != sig_.inode || path != path_loaded_;
    bool committed = false;
    if (ss.exists && !replaced && watch_) {
        try {
            Stmt v(*watch_, "PRAGMA data_version");
            committed = (v.step() ? v.int_at(0) : -1) != data_version_;
        } catch (const std::exception &) {
            committed = true;
        }
    }
    const bool retry = !last_error_.empty() && ss.exists && std::chrono::steady_clock::now() - tried_ >= kRetry;
    if (!load || !(replaced || committed || retry)) return out;
    tried_ = std::chrono::steady_clock::now();
    sig_ = ss;
    path_loaded_ = path;
    // The watch opens before the load: a commit that lands during the load is seen next time.
    watch_.reset();
    data_version_ = -1;
    if (ss.exists) {
        try {
            watch_ = std::make_unique<Db>(path, SQLITE_OPEN_READONLY);
            Stmt v(*watch_, "PRAGMA data_version");
            data_version_ = v.step() ? v.int_at(0) : -1;
        } catch (const std::exception &) {
            watch_.reset();
        }
    }
    out.changed = true;
    std::string err;
    if (!ss.exists) {
        err = "missing (fill it with jfp ingest --db " + path + ")";
    } else {
        try {
            // A commit to the store already loaded: apply what changed; anything else loads it whole. After
            // a failed attempt the history held came from an earlier file (a store copied in place is seen
            // half-written, then "committed"): only a whole load is right.
            const bool in_place = committed && !replaced && last_error_.empty() && next.history;
            if (!(in_place && update_in_place(next, path, out))) {
                out.line = load_whole(next, path);
                out.loaded_whole = true;
            }
            last_error_.clear();
            faults_.clear();
            return out;
        } catch (const std::exception &e) {
            err = e.what();
        }
    }
    if (err != last_error_) {
        faults_.report("history store " + path + " not used: " + err + "; " +
                           (next.history ? "keeping the last history loaded" : "scoring without history"),
                       err);
        last_error_ = err;
    }
    next.history_note = (next.history ? "keeping the last history; " : "") + err;
    return out;
}

// Applies the store's changes to the published history in place, a chunk at a time under the history lock.
// False when a whole load is needed (logged with the reason); the history is then untouched.
bool StoreFollower::update_in_place(PublishedState &next, const std::string &path, StoreFollow &out) {
    auto t0 = std::chrono::steady_clock::now();
    HistoryStore store(path, HistoryStore::Access::ReadOnly);
    HistorySnapshot &snap = *next.history;
    auto u = update_history_snapshot(snap, store, [&](const std::function<void()> &write) { lock_.write(write); });
    if (u.full_load_reason) {
        log_info("history store " + path + " changed: loading it whole, as " + *u.full_load_reason);
        return false;
    }
    auto names = unknown_user_uids(snap);
    if (!names.empty())
        lock_.write([&] {
            for (auto &[uid, name] : names) snap.uid_names.emplace(uid, std::move(name));
        });
    uint64_t jobs;
    {
        auto lock = lock_.read_any();
        jobs = snap.jobs;
    }
    next.history_note = std::to_string(jobs) + " jobs";
    out.updated = true;
    // One line per ingest that changed something: an admin (and a test) sees the ingest reach slurmctld.
    if (u.applied || u.queue_tokens)
        log_info("applied " + std::to_string(u.applied) + " changed jobs from " + path + " in " + std::to_string(ms_since(t0)) +
                 " ms (" + std::to_string(jobs) + " jobs" +
                 (u.queue_tokens ? "; " + std::to_string(*u.queue_tokens) + " queued job tokens" : std::string()) + ")");
    return true;
}

std::string StoreFollower::load_whole(PublishedState &next, const std::string &path) {
    auto t0 = std::chrono::steady_clock::now();
    HistoryStore store(path, HistoryStore::Access::ReadOnly);
    // Its snapshot file and the changes since, when it has a usable one: a 10M-job store in about a second
    // instead of half a minute; otherwise the store replayed.
    std::shared_ptr<HistorySnapshot> snap;
    std::string how;
    ResumedHistory r = resume_history(store, snapshot_path_for(path), trusted_);
    if (r.ok) {
        snap = std::make_shared<HistorySnapshot>(std::move(r.snap));
        how = " (its snapshot at change " + std::to_string(r.file_seq) + ", then " + std::to_string(r.applied) + " changed jobs)";
    } else {
        log_info("history snapshot not used, replaying the store: " + r.why_not);
        snap = std::make_shared<HistorySnapshot>(load_history_snapshot(store));
    }
    passwd_tried_.clear();  // a whole load asks again: users may have been added since
    for (auto &[uid, name] : unknown_user_uids(*snap)) snap->uid_names.emplace(uid, std::move(name));
#ifdef HAVE_MALLOC_TRIM
    malloc_trim(0);  // loading leaves freed memory glibc would otherwise keep in slurmctld
#endif
    std::string msg = "loaded history of " + std::to_string(snap->jobs) + " jobs (" + std::to_string(snap->index.jobs_added()) +
                      " ended, " + std::to_string(snap->index.keys()) + " keys) from " + path + how + " in " +
                      std::to_string(ms_since(t0)) + " ms";
    next.history_note = std::to_string(snap->jobs) + " jobs";
    next.history = std::move(snap);
    return msg;
}

// Users known only by name (exports without UID): asked of the password database, here in the background,
// never on the submit path; each name once.
std::vector<std::pair<uint32_t, std::string>> StoreFollower::unknown_user_uids(const HistorySnapshot &snap) {
    std::vector<std::string> ask;
    {
        auto lock = lock_.read_any();
        std::unordered_map<std::string, uint32_t> known;
        for (const auto &[uid, name] : snap.uid_names) known.emplace(name, uid);
        for (const auto &user : snap.users_without_uid)
            if (!known.count(user) && passwd_tried_.insert(user).second) ask.push_back(user);
    }
    std::vector<std::pair<uint32_t, std::string>> found;
    for (auto &user : ask)
        if (auto u = passwd_uid(user)) found.emplace_back(*u, std::move(user));
    return found;
}

}  // namespace jfp
