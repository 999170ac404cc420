// The plugin's core, with no Slurm type in sight: the shim in plugin/ turns a job descriptor into a
// SubmitRequest, calls evaluate(), and copies the SubmitOutcome's strings into Slurm's memory.
//
// Engine keeps the submit and update paths. What they read is a PublishedState (model/reload) that a
// background thread's StateLoader replaces when a file changes; they touch no file, database or network:
// feature vectors and scripts go to bounded queues that the writers' own threads write.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "model/history/name_identity_cache.h"
#include "model/jobs/join_token.h"
#include "model/jobs/token_issuer.h"
#include "model/policy/config.h"
#include "model/policy/policy.h"
#include "model/reload/state_loader.h"
#include "model/reload/user_names.h"
#include "model/telemetry/engine_counters.h"
#include "model/telemetry/engine_report.h"
#include "model/runtime/judgement.h"
#include "model/request/job_record_view.h"
#include "model/request/judged_request.h"
#include "model/request/submit_request.h"
#include "model/request/update_latency.h"
#include "model/request/update_rpc.h"
#include "model/scoring/feature_log.h"
#include "model/scoring/model_bundle.h"
#include "model/util/latency_histogram.h"
#include "model/util/periodic_thread.h"
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
    // Then, still at exit: the reload thread and the writer threads end within limit, so that none runs
    // while exit() destroys static objects (fini is not called at slurmctld's exit).
    // Submissions still in flight are judged as before; what they queue is not written. true: all ended.
    bool stop_threads_for_exit(std::chrono::milliseconds limit);

    // The plugin caught an exception and let a job through (jfp_faults_total).
    void count_fault() { counters_.add(Counter::Faults); }
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
    size_t background_writers() const { return loader_.writers().live(); }
    // The script archive's counters (zeros when none is configured).
    ScriptArchiveCounters script_archive_counters() const;

private:
    using State = PublishedState;

    std::shared_ptr<const State> state() const { return std::atomic_load(&state_); }
    std::shared_lock<std::shared_mutex> read_history(const State &st) const { return history_lock_.read(st); }
    std::string user_name(const State &st, uint32_t uid);
    using Candidate = JudgedRequest;
    // What a judgement is for: a submission (its token issued, its row logged with the script scan it
    // deferred, the script's certain findings in its annotation) or an update (the job keeps its token; its
    // row is replaced only when it has one).
    struct OutcomeFor {
        bool update = false;
        bool log_features = true;
        DeferredScript script;
        std::string_view script_field;
    };
    void fill_outcome(const State &st, Candidate &c, std::string_view comment, uint32_t uid, OutcomeFor how,
                      SubmitOutcome &out);
    void publish(const State &working);
    void background(bool first);  // the background thread's round
    void wait_for_first_history();
    // A new join token in out, with the submission's facts (array size, script features) after it.
    void issue_token(const JobRequest &r, const FeatureVector &x, SubmitOutcome &out, size_t more);
    void kick() { thread_.kick(); }  // wake the background thread now (no lock: the submit path calls it)
    void log_stats(bool final) { reporter_.log_stats(final, state()->config.stats_interval_seconds); }

    EngineOptions opt_;
    std::shared_ptr<const State> state_;
    // What every submission writes, on cache lines apart from what it only reads (state_ above) and
    // from what the background thread writes: the token counter and the hot counters share one line.
    alignas(64) TokenIssuer tokens_;
    EngineCounters counters_;
    alignas(64) LatencyHistogram submit_latency_;  // every evaluate(), logged by the background thread
    alignas(64) LatencyHistogram submit_cpu_;      // the thread's CPU time of a sample of them
    alignas(64) LatencyHistogram submit_walk_;     // the tree walks' time in the same sample
    alignas(64) UpdateLatency update_latency_;     // every evaluate_update(), per record and per RPC
    std::atomic<uint64_t> update_rpcs_{0};         // the last update RPC's id
    // Readers of the published history against the loader's in-place updates; its generation tells
    // UpdateRpc's memo the history moved.
    HistoryLock history_lock_;
    StateLoader loader_;
    UserNames user_names_;

    EngineReporter reporter_{{counters_, submit_latency_, submit_cpu_, submit_walk_, update_latency_}};  // background thread only

    NameIdentityCache names_;  // job names' identities, shared by every thread's judgements

    RateLimitedLog unscored_log_{60}, fault_log_{60}, update_budget_log_{60};

    PeriodicThread thread_;
};

}  // namespace jfp
