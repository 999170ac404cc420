// The engine's background half: every reload_interval it looks at jfp.conf, the model bundle, the history
// store, the module index and slurm.conf, loads what changed into a copy of the published state, and
// publishes the copy. A file that fails to load keeps the last good part and is said once (WatchedFile).
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "model/reload/history_lock.h"
#include "model/reload/published_state.h"
#include "model/reload/store_follower.h"
#include "model/reload/watched_file.h"
#include "model/reload/writer_set.h"

namespace jfp {

struct LoaderOptions {
    std::string config_path;      // jfp.conf
    std::string slurm_conf_path;  // for partition defaults; empty: none
    std::vector<uid_t> trusted_uids{0};  // owners allowed for jfp.conf, the model and the module index
    bool writers = true;          // false: no background writer is started (tests without threads)
};

// What a poll did that the engine counts or acts on.
struct LoaderEvents {
    bool model_loaded = false;
    bool model_error_said = false;  // a line said the model is not used: the unscored reminder waits
    StoreFollow store;
};

class StateLoader {
public:
    using Publish = std::function<void(const PublishedState &)>;
    StateLoader(LoaderOptions options, HistoryLock &history) : opt_(std::move(options)), store_(history, opt_.trusted_uids), writers_(opt_.writers) {}
    // One look at every file. publish may be called more than once: a new model is scored with before the
    // history has loaded too.
    LoaderEvents poll(const PublishedState &current, bool load_history, const Publish &publish);
    WriterSet &writers() { return writers_; }
    const WriterSet &writers() const { return writers_; }
    const LoaderOptions &options() const { return opt_; }

private:
    bool load_config(PublishedState &next, const Publish &publish);
    bool load_model(PublishedState &next, const Publish &publish, LoaderEvents &ev);
    bool load_modules(PublishedState &next);
    bool load_defaults(PublishedState &next);
    void note_below_target(const PublishedState &st);
    void note_waste(const PublishedState &st);  // decide_by = waste: the budget in force, or why there is none

    const LoaderOptions opt_;
    WatchedFile config_, model_, modules_, slurm_conf_;
    std::vector<std::pair<std::string, FileSig>> slurm_conf_included_;  // the files its Include lines name
    StoreFollower store_;
    WriterSet writers_;
    std::string below_target_said_;  // model id and setting the below-target line was said for
    std::string waste_said_;         // what note_waste last said (so it says it once)
};

// What the threshold reached on validation, as jfp train recorded it (": validation precision ...").
std::string threshold_note(const ModelBundle &b);

}  // namespace jfp
