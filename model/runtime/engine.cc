#include "model/runtime/engine.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "jfp_config.h"
#include "model/archive/blob_codec.h"
#include "model/files/file_check.h"
#include "model/policy/advice.h"
#include "model/policy/explain.h"
#include "model/policy/user_message.h"
#include "model/request/request_caps.h"
#include "model/runtime/archive_handoff.h"
#include "model/runtime/decision_record.h"
#include "model/runtime/script_evidence.h"
#include "model/scoring/features.h"
#include "model/snapshot/snapshot_file.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {


Engine::Engine(EngineOptions options)
    : opt_(std::move(options)),
      loader_(LoaderOptions{opt_.config_path, opt_.slurm_conf_path, opt_.trusted_uids, opt_.background}, history_lock_) {
    init_digests_without_exit_handler();  // before the plugin registers its exit flush: see blob_codec.h
    auto initial = std::make_shared<State>();
    initial->config.mode = Mode::Off;
    initial->defaults = std::make_shared<ClusterDefaults>();
    initial->config_note = "not read yet";
    std::atomic_store(&state_, std::shared_ptr<const State>(initial));
    poll(!opt_.background);
    if (opt_.background) {
        thread_.start("jfp-background", [this](bool first) { background(first); }, [this] {
            const double interval = std::max(0.05, state()->config.reload_interval_seconds);
            return std::chrono::milliseconds(static_cast<int64_t>(interval * 1000));
        });
        try {
            wait_for_first_history();  // a throw here would destroy a joinable thread: std::terminate
        } catch (...) {
        }
    }
}

// The history loads on the background thread; slurmctld's start waits for it, at most start_wait, so that
// the first jobs after a start or a takeover are scored with their history.
void Engine::wait_for_first_history() {
    auto st = state();
    if (!st->config_present || st->config.mode == Mode::Off || st->config.start_wait_seconds <= 0) return;
    if (!file_sig(st->config.store_path).exists) return;
    auto t0 = std::chrono::steady_clock::now();
    const bool done = thread_.wait_first(std::chrono::duration<double>(st->config.start_wait_seconds));
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    if (!done)
        log_warning("slurmctld goes on after start_wait = " + number_text(st->config.start_wait_seconds) +
                    " s; the history is still loading, and jobs are scored without it until it has (jfp ingest keeps a "
                    "snapshot that loads in seconds: is " + snapshot_path_for(st->config.store_path) + " there?)");
    else
        log_info("slurmctld's start waited " + std::to_string(ms) + " ms for the history");
}

Engine::~Engine() {
    thread_.stop();
    try {
        end_update_rpc();
        log_stats(true);
    } catch (...) {
    }
    // Each writer writes its queue as it is destroyed: the current ones with the last state, then the retired.
    std::atomic_store(&state_, std::shared_ptr<const State>());
    loader_.writers().close_retired();
}

// The background thread's round: the first loads what the files hold; each later one also says the stats
// line and writes the metrics file when their intervals have passed.
void Engine::background(bool first) {
    try {
        if (!first) {
            update_latency_.close_idle(monotonic_ns(), UpdateLatency::kIdleNs);
            log_stats(false);
            write_metrics(false);
        }
        poll();
    } catch (const std::exception &e) {
        fault_log_.log(LogLevel::Error, first ? std::string("first load: ") + e.what()
                                              : std::string("reload: ") + e.what() + "; keeping the last good state");
    } catch (...) {
        fault_log_.log(LogLevel::Error, first ? "first load: unknown exception" : "reload: unknown exception; keeping the last good state");
    }
}

std::string Engine::user_name(const State &st, uint32_t uid) {
    if (st.history)
        if (const std::string *n = st.history->user_name(uid)) return *n;
    bool queued = false;
    std::string name = user_names_.name(uid, queued);
    if (queued) kick();  // looked up in the background for the next submission
    return name;
}

void Engine::fill_outcome(const State &st, Candidate &c, std::string_view comment, uint32_t uid, OutcomeFor how,
                          SubmitOutcome &out) {
    const bool is_update = how.update;
    const ModelBundle &model = *st.model;
    const Config &cfg = st.config;
    const JobRequest &r = c.r;
    const HistoryView &hv = c.hv;
    const FeatureVector &x = c.x;
    const Score &s = c.s;
    out.decision = c.d;
    Decision &d = out.decision;
    counters_.add(Counter::Scored);
    if (d.exempt) counters_.add(Counter::Exempt);

    if (out.token.empty() && !is_update) issue_token(r, x, out, 64 + model.model_id().size());

    if (d.action == Action::Annotate) {
        // A job that is acted on carries what its history suggests, for the user and for tools reading
        // sacct. The text is written once, into the admin comment when that is annotated.
        std::string suggestion = d.flagged ? suggestion_fields(suggest(s.top_class, r, hv)) : std::string();
        suggestion += how.script_field;  // what the script shows for certain, whatever the score
        // The failure class is the likeliest failure if it fails: said only of a job at or above the
        // threshold ("class=FAILED" at p=0.18 read as a prediction that it fails).
        const int cls_shown = d.flagged ? s.top_class : -1;
        std::string own;
        std::string_view annotation;
        if (cfg.annotate_admin_comment) {
            std::string &admin = out.admin_comment_append;
            if (!admin.empty()) admin += ' ';
            size_t at = admin.size();
            append_annotation_text(admin, s.p_fail, cls_shown, model.model_id(), d.override_used, suggestion);
            annotation = std::string_view(admin).substr(at);
        } else {
            append_annotation_text(own, s.p_fail, cls_shown, model.model_id(), d.override_used, suggestion);
            annotation = own;
        }
        if (cfg.annotate_comment) {
            if (auto c = append_annotation(comment, annotation)) out.new_comment = std::move(*c);
            else counters_.add(Counter::CommentFull);
        }
        counters_.add(Counter::Annotated);
    }

    if (d.action == Action::Warn || d.action == Action::Reject) {
        MessageParts m;
        m.action = d.action;
        m.p_fail = static_cast<double>(s.p_fail);
        m.top_class = s.top_class;
        m.why = cfg.explain ? explain(model, x, r, hv, s.top_class) : std::string("it resembles jobs that failed");
        m.what = advice(s.top_class, r, hv, cfg.checkpoint_url);
        m.override_used = d.override_used;
        m.allow_override = cfg.allow_override;
        m.override_token = cfg.override_token;
        m.interactive = r.interactive == 1;
        set_waste_parts(m, d);
        out.user_message = user_message(m);
        out.reject = d.action == Action::Reject;
        if (out.reject) {
            counters_.add(Counter::Rejected);
        } else {
            if (d.override_used) counters_.add(Counter::Overridden);
            counters_.add(Counter::Warned);
        }
    }

    log_decision(cfg, c, d, model.model_id(), is_update, out.token);

    // The feature vector goes to the log through the bounded queue; never waits.
    if (FeatureLogWriter *w = how.log_features ? st.writers.feature_log.get() : nullptr)
        w->push(feature_log_entry(c, d, st.model, uid, out.token, is_update, std::move(how.script)));
}

namespace {
// Wall time of every call; of about one call in 16 (picked by the clock's bits, so no counter is shared
// between slurmctld's threads) also the thread's CPU time and the tree walks' time. The CPU time leaves
// out the time the thread waited for a core; the walks, timed where they run, are the in-place reference
// for jfp's own cost (bench/hotpath times them apart, with warm caches).
struct LatencyScope {
    LatencyHistogram &wall, &cpu, &walk;
    uint64_t t0 = monotonic_ns();
    uint64_t c0 = ((t0 >> 8) & 15) == 0 ? thread_cpu_ns() : 0;
    uint64_t walk_ns = 0;
    uint64_t *walk_timer() { return c0 ? &walk_ns : nullptr; }
    ~LatencyScope() {
        if (c0) {
            cpu.record(thread_cpu_ns() - c0);
            if (walk_ns) walk.record(walk_ns);
        }
        wall.record(monotonic_ns() - t0);
    }
};
}  // namespace

void Engine::issue_token(const JobRequest &r, const FeatureVector &x, SubmitOutcome &out, size_t more) {
    out.token = tokens_.issue();
    // One allocation: the annotation (more bytes) usually follows the token.
    out.admin_comment_append.reserve(6 + out.token.size() + 1 + more);
    out.admin_comment_append.append("jfp:t=").append(out.token.view());
    append_submission_facts(out.admin_comment_append, r.array_size, x);
}

bool Engine::privileged(uint32_t uid) const {
    return std::find(opt_.trusted_uids.begin(), opt_.trusted_uids.end(), static_cast<uid_t>(uid)) != opt_.trusted_uids.end();
}

SubmitOutcome Engine::evaluate(const SubmitRequest &given) {
    LatencyScope timed{submit_latency_, submit_cpu_, submit_walk_};
    SubmitOutcome out;
    counters_.add(Counter::Evaluated);
    auto st = state();
    if (!st->config_present || st->config.mode == Mode::Off) return out;
    // Every request is judged, including one slurmctld may refuse after job_submit: jfp does not guess
    // its verdict. What a user sized is capped first (request_caps.h), so such a request costs little.
    SubmitRequest req = given;
    normalise(req);

    std::string_view comment = req.comment;
    if (auto n = neutralize(req.comment)) {
        out.new_comment = *n;
        counters_.add(Counter::Neutralized);
    }
    std::string_view neutral_comment = out.new_comment ? std::string_view(*out.new_comment) : comment;
    if (!st->model) {
        counters_.add(Counter::Unscored);
        // Waiting for a first model is a state the guide describes, not a fault: its reminder is not an error.
        unscored_log_.log(st->model_missing ? LogLevel::Info : LogLevel::Error,
                          "no usable model (" + st->model_note + "): jobs pass unscored");
        // The token does not wait for a model: the history the first model trains on, and later updates of
        // this job, join by it. The script's facts need no history.
        JobRequest r = resolve_request(req, std::string(), *st->defaults, nullptr);
        FeatureVector x;
        build_features(r, HistoryView{}, x);
        issue_token(r, x, out, 0);
        return out;
    }
    // What the script shows for certain needs no history: found before its lock is taken.
    const ScriptEvidence ev = find_script_evidence(st->config, st->modules.get(), req);
    auto history_lock = read_history(*st);
    std::string user = user_name(*st, req.uid);
    // Scanning the script was a third of this call (bench/hotpath). A model that splits on no script
    // feature cannot be moved by one, so then the scan is left to the feature-log thread (which logs
    // the full vector for training) or, with no feature log, skipped.
    ScriptScan scan = ScriptScan::Now;
    DeferredScript deferred;
    if (req.has_script && !st->model->uses_script_features()) {
        if (st->writers.feature_log) deferred = st->writers.feature_log->defer(req.script);
        if (deferred.pending() || !st->writers.feature_log) scan = ScriptScan::Later;
    }
    Candidate c;
    judge_request(*st, names_, req, JudgeContext{user, privileged(req.uid), neutral_comment, scan, nullptr, ev.counts, timed.walk_timer()},
                  c);
    const std::string script_field = ev.annotation_field();
    fill_outcome(*st, c, neutral_comment, req.uid, OutcomeFor{false, true, std::move(deferred), script_field}, out);
    history_lock = {};
    if (ev.judged()) {
        EvidenceJudged j = judge_script_evidence(st->config, req, c.r, neutral_comment, privileged(req.uid), ev,
                                                 out.user_message, out.reject);
        if (j.ignored_directives) counters_.add(Counter::IgnoredDirectives);
        if (j.missing_modules) counters_.add(Counter::MissingModules);
        if (j.rejected) counters_.add(Counter::Rejected);
    }
    if (st->writers.script_archive && c.r.script_known && !out.token.empty())
        hand_to_archive(*st->writers.script_archive, req, c.r, out.token, st->config.script_archive_env, opt_.cluster_name);
    return out;
}

Mode Engine::mode() const { return state()->config_present ? state()->config.mode : Mode::Off; }

ScriptArchiveCounters Engine::script_archive_counters() const {
    auto st = state();
    return st && st->writers.script_archive ? st->writers.script_archive->counters() : ScriptArchiveCounters{};
}

std::string Engine::model_id() const {
    auto st = state();
    return st->model ? st->model->model_id() : std::string();
}

size_t Engine::history_jobs() const {
    auto st = state();
    auto history_lock = read_history(*st);
    return st->history ? st->history->jobs : 0;
}

std::string Engine::describe() const {
    auto st = state();
    std::string s = "config=" + opt_.config_path + " (" + st->config_note + ")";
    if (st->config_present) {
        s += " model=" + st->config.model_path + " (" + (st->model_note.empty() ? "not loaded" : st->model_note) + ")";
        s += " store=" + st->config.store_path + " (" + (st->history_note.empty() ? "loading" : st->history_note) + ")";
    }
    s += std::string(" mode=") + mode_name(st->config_present ? st->config.mode : Mode::Off);
    s += std::string(" jfp=") + PACKAGE_VERSION;
    return s;
}

void Engine::write_metrics(bool now) {
    reporter_.write_metrics(now, *state(), history_lock_, loader_.writers().budget(), opt_.cluster_name);
}

bool Engine::flush_for_exit(std::chrono::milliseconds limit) {
    auto st = state();
    return !st || WriterSet::flush(st->writers, limit);
}

bool Engine::stop_threads_for_exit(std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    bool done = thread_.stop_within(limit);
    const auto left = std::max(std::chrono::milliseconds(0), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                  deadline - std::chrono::steady_clock::now()));
    auto st = state();
    return (!st || WriterSet::stop_within(st->writers, left)) && done;
}

// One look at the files; what changed is published. The snapshot this poll started from may hold a writer
// the loader just retired: it is let go before the retired writers are closed.
void Engine::poll(bool load_history) {
    auto cur = state();
    LoaderEvents ev = loader_.poll(*cur, load_history, [this](const State &next) { publish(next); });
    if (ev.model_loaded) counters_.add(Counter::ModelLoads);
    if (ev.model_error_said) unscored_log_.hold();
    if (ev.store.loaded_whole) counters_.add(Counter::HistoryLoads);
    if (ev.store.updated) counters_.add(Counter::HistoryUpdates);
    cur.reset();
    loader_.writers().close_retired();
    user_names_.resolve_queued();
}

// Readers hold the published object; the loader keeps working on its own copy.
void Engine::publish(const State &working) {
    std::atomic_store(&state_, std::shared_ptr<const State>(std::make_shared<State>(working)));
}

}  // namespace jfp
