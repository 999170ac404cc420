// The plugin's core, with no Slurm type in sight: the shim in plugin/ turns a job descriptor into a
// SubmitRequest, calls evaluate(), and copies the SubmitOutcome's strings into Slurm's memory.
//
// State (config, model bundle, history, slurm.conf defaults) is an immutable snapshot behind an atomic
// shared_ptr. A background thread stats the files every reload_interval and swaps in a new snapshot when
// one changed; a failed reload keeps the last good part and logs why once. The submit path reads the
// snapshot and touches no file, database or network: feature vectors go to a bounded queue that a second
// background thread writes to SQLite.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/archive/script_archive_writer.h"
#include "model/history/name_identity_cache.h"
#include "model/snapshot/history_snapshot.h"
#include "model/snapshot/snapshot_file.h"
#include "model/snapshot/snapshot_resume.h"
#include "model/jobs/cluster_defaults.h"
#include "model/jobs/join_token.h"
#include "model/policy/config.h"
#include "model/policy/policy.h"
#include "model/policy/script_findings.h"
#include "model/script/ignored_directives.h"
#include "model/script/module_index.h"
#include "model/runtime/job_record_view.h"
#include "model/runtime/judged_request.h"
#include "model/runtime/submit_request.h"
#include "model/runtime/update_latency.h"
#include "model/runtime/update_rpc.h"
#include "model/scoring/feature_log.h"
#include "model/scoring/model_bundle.h"
#include "model/files/file_check.h"
#include "model/util/latency_histogram.h"
#include "model/util/log.h"

namespace jfp {

struct EngineOptions {
    std::string config_path;      // jfp.conf
    std::string slurm_conf_path;  // for partition defaults; empty: none
    std::vector<uid_t> trusted_uids{0};  // owners allowed for jfp.conf and the model (root, SlurmUser)
    std::string cluster_name;     // slurm.conf's ClusterName, recorded with archived scripts
    bool background = true;       // false: no threads; tests call poll() and the writer is not started
};

struct SubmitOutcome {
    Decision decision;
    JoinToken token;                         // empty when nothing was scored
    std::optional<std::string> new_comment;  // replace the job's comment with this
    std::string admin_comment_append;        // append (space separated) to admin_comment
    std::string user_message;                // warn/reject text for the user (err_msg)
    bool reject = false;
};

struct EngineCounters {
    std::atomic<uint64_t> evaluated{0}, scored{0}, annotated{0}, warned{0}, rejected{0}, overrides{0},
        exempt{0}, unscored{0}, comment_full{0}, neutralized{0}, modified{0}, modify_unknown{0}, modify_not_owner{0},
        history_loads{0}, history_updates{0}, model_loads{0}, faults{0}, ignored_directives{0}, missing_modules{0};
};

class Engine {
public:
    explicit Engine(EngineOptions options);
    ~Engine();
    Engine(const Engine &) = delete;
    Engine &operator=(const Engine &) = delete;

    // The submit path: thread-safe, no locks around scoring, no I/O.
    SubmitOutcome evaluate(const SubmitRequest &req);

    // scontrol update: delta holds only what the update changes; job is what slurmctld holds for the job
    // now (its record). The job as it will be after the update is judged as a fresh submission would be.
    // job_id is the job's id as text, for the log.
    SubmitOutcome evaluate_update(const std::string &job_id, const SubmitRequest &delta, uint32_t updater_uid,
                                  const JobRecordView &job);
    // The same, for one record of an update RPC that may reach many (update_rpc.h): rpc is the calling
    // thread's, desc the descriptor's address (compared only). What the update says is prepared once per RPC,
    // and a record judged on the same inputs as the last one shares its judgement.
    SubmitOutcome evaluate_update(UpdateRpc &rpc, const void *desc, const std::string &job_id, const SubmitRequest &delta,
                                  uint32_t updater_uid, const JobRecordView &job);
    // root or SlurmUser (EngineOptions::trusted_uids): warned, not rejected, unless reject_privileged.
    bool privileged(uint32_t uid) const;

    // One reload check: stat the files and load what changed. The background thread runs it every
    // reload_interval; tests call it directly.
    void poll() { poll(true); }
    void poll(bool load_history);

    // slurmctld is exiting (fini is not called then): what the feature log and the archive hold in memory is
    // written, within `limit` in all; false when the limit passed first (a hung file system).
    bool flush_for_exit(std::chrono::milliseconds limit);

    // The plugin caught an exception and let a job through (jfp_faults_total).
    void count_fault() { counters_.faults.fetch_add(1, std::memory_order_relaxed); }
    // The metrics file (metrics_file in jfp.conf), when metrics_interval has passed or `now`; the background
    // thread calls it, tests too.
    void write_metrics(bool now);

    // What the plugin found, for the init log line.
    std::string describe() const;
    const EngineCounters &counters() const { return counters_; }
    // What was recorded since the last call: the background thread's stats line, and tests.
    LatencyHistogram::Summary take_latency() { return submit_latency_.take(); }
    // The open update RPC's time is recorded now (the background thread waits until it has been idle).
    void end_update_rpc() { update_latency_.close_idle(~uint64_t{0}, 0); }
    Mode mode() const;
    std::string model_id() const;
    size_t history_jobs() const;
    // Background writers alive (feature log, script archive): the current ones and those retired by a
    // config change that a submission in flight may still hold (each closed once none does).
    size_t background_writers() const { return live_writers_.load(); }
    // The script archive's counters (zeros when none is configured).
    ScriptArchiveCounters script_archive_counters() const;

private:
    struct State {
        Config config;
        bool config_present = false;
        std::shared_ptr<const ModelBundle> model;
        // Kept current in place by the loader under history_mu_ (incremental reloads); replaced whole
        // after a full load.
        std::shared_ptr<HistorySnapshot> history;
        std::shared_ptr<const ClusterDefaults> defaults;
        std::shared_ptr<const ModuleIndex> modules;  // modules_index, when one is named and loaded
        // Held through the snapshot, so a submission keeps the writer it started with alive; the
        // background thread destroys retired writers (joining their threads), never a submit thread.
        std::shared_ptr<FeatureLogWriter> feature_log;
        std::shared_ptr<ScriptArchiveWriter> script_archive;
        std::string model_note, history_note, config_note;
        bool model_missing = false;  // the model file is not there (a site waiting for its first model)
    };

    std::shared_ptr<const State> state() const { return std::atomic_load(&state_); }
    // Shared while a submission reads a history snapshot, exclusive while the loader writes a chunk of
    // changes into the published one (a few milliseconds at most).
    std::shared_lock<std::shared_mutex> read_history(const State &st) const {
        return st.history ? std::shared_lock<std::shared_mutex>(history_mu_) : std::shared_lock<std::shared_mutex>();
    }
    bool update_history(State &next, const std::string &store_path);
    bool follow_writers(State &next);
    std::vector<std::pair<uint32_t, std::string>> unknown_user_uids(const HistorySnapshot &snap);
    // The load line to log once the new state is published.
    std::string load_whole_history(State &next, const std::string &store_path);
    std::string user_name(const State &st, uint32_t uid);
    // One way the job may run (a partition of its list), scored and decided.
    using Candidate = JudgedRequest;
    // Scores req in each partition it may run in and keeps the strictest decision in best (a list of one
    // is the usual case). facts: an update's array and script features, from the job's AdminComment;
    // findings: the script's finding counts, the model's features (the evidence's, or the facts').
    // entries: req.partition's entries to judge (partitions_to_judge), when the caller has them already.
    void judge(const State &st, const SubmitRequest &req, const std::string &user, bool privileged,
               std::string_view comment, ScriptScan scan, const SubmissionFacts *facts, const FindingCounts &findings,
               Candidate &best, const std::vector<std::string> *entries = nullptr);
    // Of a partition list, the entries a judgement scores: every partition jfp knows (slurm.conf, the history,
    // jfp.conf), and the first it does not (all unknown ones score alike).
    static std::vector<std::string> partitions_to_judge(const State &st, std::string_view list);
    // What the script shows with certainty (ignored #SBATCH lines, missing modules), found before the
    // outcome is filled so that the annotation carries it, and judged after.
    struct ScriptEvidence {
        DirectiveScan directives;
        std::vector<ModuleFinding> modules;
        std::vector<std::string> not_told;  // module loads not judged, and why (debug log)
        FindingCounts counts;  // the model's features, whatever jfp.conf does with the findings
        std::string annotation_field() const;  // ",script=ignored_sbatch+missing_module", or empty
    };
    ScriptEvidence find_script_evidence(const State &st, const SubmitRequest &req) const;
    void judge_directives(const State &st, const SubmitRequest &req, const JobRequest &r, std::string_view comment,
                          const DirectiveScan &scan, SubmitOutcome &out);
    void judge_modules(const State &st, const SubmitRequest &req, const JobRequest &r, std::string_view comment,
                       const ScriptEvidence &ev, SubmitOutcome &out);
    bool load_modules_index(State &next);
    void fill_outcome(const State &st, Candidate &c, std::string_view comment, uint32_t uid, SubmitOutcome &out,
                      bool is_update, bool log_features, DeferredScript script = DeferredScript(),
                      std::string_view script_field = {});
    void publish(const std::shared_ptr<State> &working);
    void archive_script(const State &st, const SubmitRequest &req, const JobRequest &r, const JoinToken &token);
    template <class W> void replace_writer(std::shared_ptr<W> &slot, std::shared_ptr<W> next);
    void run();
    void wait_for_first_history();
    void resolve_pending_uids();
    void note_below_target(const State &st);
    void note_waste(const State &st);  // decide_by = waste: the budget in force, or why there is none
    // A new join token in out, with the submission's facts (array size, script features) after it.
    void issue_token(const JobRequest &r, const FeatureVector &x, SubmitOutcome &out, size_t more);
    void kick();  // wake the background thread now
    void log_stats(bool final);

    EngineOptions opt_;
    std::shared_ptr<const State> state_;
    // What every submission writes, on cache lines apart from what it only reads (state_ above) and
    // from what the background thread writes: the token counter and the hot counters share one line.
    alignas(64) std::atomic<uint64_t> token_counter_{0};
    EngineCounters counters_;
    alignas(64) LatencyHistogram submit_latency_;  // every evaluate(), logged by the background thread
    alignas(64) UpdateLatency update_latency_;     // every evaluate_update(), per record and per RPC
    std::atomic<uint64_t> update_rpcs_{0};         // the last update RPC's id
    // Bumped under history_mu_ each time the loader writes into the published snapshot: a judgement that
    // points into it (RecordMemo) is reused only while this stays the same.
    std::atomic<uint64_t> history_generation_{0};

    std::chrono::steady_clock::time_point metrics_last_{};  // background thread only
    std::string metrics_error_said_;

    // Loader bookkeeping (background thread only).
    FileSig config_sig_, model_sig_, store_sig_, slurm_conf_sig_, modules_sig_;
    std::vector<std::pair<std::string, FileSig>> slurm_conf_included_;  // the files its Include lines name
    std::string modules_path_loaded_, last_modules_error_;
    // A connection kept open to the store: PRAGMA data_version changes when another connection (jfp ingest)
    // commits. The store's files cannot tell: merely reading a WAL database touches its -wal and -shm.
    std::unique_ptr<Db> store_watch_;
    int64_t store_data_version_ = -1;
    std::string model_path_loaded_, store_path_loaded_;
    mutable std::shared_mutex history_mu_;
    std::unordered_set<std::string> passwd_tried_;  // user names looked up in the password database
    std::string last_config_error_, last_model_error_, last_store_error_;
    std::string below_target_said_;  // model id and setting the below-target line was said for
    std::string waste_said_;  // what note_waste last said (so it says it once)
    // One line a minute per kind while a fault keeps changing (docs/admin-guide.md, "When something is wrong").
    FaultLog config_faults_{60}, model_faults_{60}, store_faults_{60}, modules_faults_{60};
    // A store that failed to load is tried again this often even when its file looks unchanged (a
    // remount, a fixed permission or lock): seldom enough that a slow failure costs the host little.
    static constexpr std::chrono::seconds kStoreRetry{10};
    std::chrono::steady_clock::time_point store_tried_{};

    // uid -> name from the password database, resolved in the background for uids the store lacks.
    std::shared_ptr<const std::unordered_map<uint32_t, std::string>> passwd_names_;
    BoundedQueue<uint32_t> uid_misses_{1024};
    static constexpr size_t kMaxUserNames = 65536;

    // Writers replaced after a config change, kept until no published snapshot holds them (background
    // thread only).
    std::vector<std::shared_ptr<void>> retired_writers_;
    std::atomic<size_t> live_writers_{0};
    std::string feature_log_path_, script_archive_path_;
    int64_t script_archive_budget_ = 0;
    // Both writers' per-user day; one for the engine's life: a reload or a new file gives no day back.
    NameIdentityCache names_;  // job names' identities, shared by every thread's judgements
    const std::shared_ptr<UserWriteBudget> write_budget_ = std::make_shared<UserWriteBudget>(Config().user_write_bytes_per_day);
    void close_retired_writers();

    uint64_t token_seed_ = 0;

    RateLimitedLog unscored_log_{60}, fault_log_{60};

    std::atomic<bool> stop_{false}, kick_{false};
    static constexpr size_t kArchiveQueueEntries = 65536;  // the byte budget (jfp.conf) usually binds first
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point stats_last_{};  // background thread only
    uint64_t stats_prev_[5] = {};
    std::mutex wake_mu_;
    std::condition_variable wake_;
    std::mutex first_load_mu_;
    std::condition_variable first_load_cv_;
    bool first_load_done_ = false;
    std::thread thread_;
};

}  // namespace jfp
