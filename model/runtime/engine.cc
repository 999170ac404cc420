#include "model/runtime/engine.h"

#include "model/script/script_fingerprint.h"

#include "model/archive/blob_codec.h"
#include "model/runtime/metrics_file.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <random>

#include "jfp_config.h"
#include "model/jobs/job_record.h"
#include "model/policy/advice.h"
#include "model/script/ignored_directives.h"
#include "model/script/module_lines.h"
#include "model/policy/explain.h"
#include "model/policy/job_price.h"
#include "model/policy/script_findings.h"
#include "model/policy/user_message.h"
#include "model/runtime/request_caps.h"
#include "model/scoring/features.h"
#include "model/util/background_thread.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

namespace {

uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

}  // namespace

Engine::Engine(EngineOptions options) : opt_(std::move(options)) {
    init_digests_without_exit_handler();  // before the plugin registers its exit flush: see blob_codec.h
    std::random_device rd;
    token_seed_ = (static_cast<uint64_t>(rd()) << 32) ^ rd() ^ static_cast<uint64_t>(getpid());
    auto initial = std::make_shared<State>();
    initial->config.mode = Mode::Off;
    initial->defaults = std::make_shared<ClusterDefaults>();
    initial->config_note = "not read yet";
    std::atomic_store(&state_, std::shared_ptr<const State>(initial));
    passwd_names_ = std::make_shared<const std::unordered_map<uint32_t, std::string>>();
    poll(!opt_.background);
    if (opt_.background) {
        thread_ = std::thread([this] { run(); });
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
    std::unique_lock<std::mutex> lk(first_load_mu_);
    bool done = first_load_cv_.wait_for(lk, std::chrono::duration<double>(st->config.start_wait_seconds),
                                        [&] { return first_load_done_; });
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    if (!done)
        log_warning("slurmctld goes on after start_wait = " + number_text(st->config.start_wait_seconds) +
                    " s; the history is still loading, and jobs are scored without it until it has (jfp ingest keeps a "
                    "snapshot that loads in seconds: is " + snapshot_path_for(st->config.store_path) + " there?)");
    else
        log_info("slurmctld's start waited " + std::to_string(ms) + " ms for the history");
}

Engine::~Engine() {
    stop_.store(true);
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    try {
        end_update_rpc();
        log_stats(true);
    } catch (...) {
    }
    // Each writer drains its queue as it is destroyed, the current one with the last snapshot.
    retired_writers_.clear();
    std::atomic_store(&state_, std::shared_ptr<const State>());
}

void Engine::run() {
    name_this_thread("jfp-background");
    bool first = true;
    while (!stop_.load()) {
        if (first) {
            first = false;
            try {
                poll();
            } catch (const std::exception &e) {
                fault_log_.log(LogLevel::Error, std::string("first load: ") + e.what());
            } catch (...) {
                fault_log_.log(LogLevel::Error, "first load: unknown exception");
            }
            {
                std::lock_guard<std::mutex> lk(first_load_mu_);
                first_load_done_ = true;
            }
            first_load_cv_.notify_all();
            continue;
        }
        double interval = state()->config.reload_interval_seconds;
        {
            std::unique_lock<std::mutex> lk(wake_mu_);
            wake_.wait_for(lk, std::chrono::milliseconds(static_cast<int64_t>(std::max(0.05, interval) * 1000)),
                           [&] { return stop_.load() || kick_.exchange(false); });
        }
        if (stop_.load()) break;
        try {
            update_latency_.close_idle(monotonic_ns(), UpdateLatency::kIdleNs);
            log_stats(false);
            write_metrics(false);
            poll();
        } catch (const std::exception &e) {
            fault_log_.log(LogLevel::Error, std::string("reload: ") + e.what() + "; keeping the last good state");
        } catch (...) {
            fault_log_.log(LogLevel::Error, "reload: unknown exception; keeping the last good state");
        }
    }
}

std::string Engine::user_name(const State &st, uint32_t uid) {
    if (st.history)
        if (const std::string *n = st.history->user_name(uid)) return *n;
    auto names = std::atomic_load(&passwd_names_);
    auto it = names->find(uid);
    if (it != names->end()) return it->second;
    uid_misses_.try_push(uint32_t(uid));  // resolved in the background for the next submission
    kick();
    return "uid:" + std::to_string(uid);
}

namespace {

int severity(const Decision &d) { return static_cast<int>(d.action) * 2 + (d.flagged ? 1 : 0); }

}  // namespace

void Engine::judge(const State &st, const SubmitRequest &req, const std::string &user, bool privileged,
                   std::string_view comment, ScriptScan scan, const SubmissionFacts *facts, const FindingCounts &findings,
                   Candidate &best, const std::vector<std::string> *given_entries) {
    const ModelBundle &model = *st.model;
    const HistorySnapshot *history = st.history.get();
    // Once per request, whatever the partitions (an update has no script at hand: its name alone); the name's
    // identity once per request, and kept for the next request of the same name (an update's records).
    const uint64_t fingerprint = !facts && req.has_script ? script_fingerprint(req.script) : 0;
    NameIdentityCache::Held held;
    const NameIdentity *identity = nullptr;
    auto score = [&](Candidate &c, const SubmitRequest &one, ScriptScan how) {
        c.r = resolve_request(one, user, *st.defaults, history);
        c.r.script_fingerprint = fingerprint;
        c.r.privileged = privileged;
        c.r.script_ignored_sbatch = findings.ignored_sbatch;
        c.r.script_missing_modules = findings.missing_modules;
        if (facts) {  // an update: the script is not at hand, its traits (and the array) are the submission's
            c.r.script_known = false;
            c.r.array_size = facts->array_size;
        }
        if (history && !identity) identity = &names_.get(c.r.name, held);
        c.hv = history ? history->index.lookup(c.r, *identity) : HistoryView{};
        build_features(c.r, c.hv, c.x, how);
        if (facts && facts->script_known)
            std::copy(facts->script.begin(), facts->script.end(), c.x.begin() + F_script_bytes);
    };
    auto decide = [&](Candidate &c) {
        c.s = model.score_failure(c.x);
        if (st.config.decide_by == DecideBy::Waste) {
            WasteInput w = price_job(c.r, c.hv, *st.defaults, model.waste_budget(), model.waste_unit());
            apply_policy(st.config, c.r, c.hv, comment, model.threshold(), c.s, c.d, model.below_target(), &w);
        } else {
            apply_policy(st.config, c.r, c.hv, comment, model.threshold(), c.s, c.d, model.below_target());
        }
        // The class is said (annotation, message, log line) only of a job at or above its threshold (a
        // warning or a refusal always is), or in a debug line; below it the class trees, most of the
        // walk, are not walked.
        if (c.d.flagged || c.d.action == Action::Warn || c.d.action == Action::Reject || debug_enabled()) {
            model.classify(c.x, c.s);
            c.d.top_class = c.s.top_class;
        }
    };
    if (req.partition.find(',') == std::string_view::npos) {  // nearly every job: one way to run
        score(best, req, scan);
        decide(best);
        return;
    }
    // A list: the job runs in whichever partition starts it, so it is judged by the strictest.
    std::vector<std::string> own;
    const std::vector<std::string> &entries = given_entries ? *given_entries : (own = partitions_to_judge(st, req.partition));
    if (entries.size() <= 1) {
        SubmitRequest one = req;
        one.partition = entries.empty() ? std::string_view() : std::string_view(entries[0]);
        score(best, one, scan);
        decide(best);
        return;
    }
    bool first = true;
    std::array<float, kScriptFeatureCount> script{};
    for (const std::string &p : entries) {
        SubmitRequest one = req;
        one.partition = p;
        Candidate c;
        score(c, one, first ? scan : ScriptScan::Later);
        if (first) std::copy_n(c.x.begin() + F_script_bytes, kScriptFeatureCount, script.begin());
        else std::copy(script.begin(), script.end(), c.x.begin() + F_script_bytes);
        decide(c);
        if (first || severity(c.d) > severity(best.d) || (severity(c.d) == severity(best.d) && c.s.p_fail > best.s.p_fail))
            best = std::move(c);
        first = false;
    }
}

std::vector<std::string> Engine::partitions_to_judge(const State &st, std::string_view list) {
    std::vector<std::string> out;
    bool unknown_judged = false;
    const HistorySnapshot *history = st.history.get();
    for (std::string_view p : partition_entries(list)) {
        const bool known = st.defaults->partition(p) || (history && history->index.knows_partition(p)) ||
                           st.config.names_partition(p);
        if (!known) {
            if (unknown_judged) continue;
            unknown_judged = true;
        }
        out.emplace_back(p);
    }
    return out;
}

void Engine::fill_outcome(const State &st, Candidate &c, std::string_view comment, uint32_t uid, SubmitOutcome &out,
                          bool is_update, bool log_features, DeferredScript script, std::string_view script_field) {
    const ModelBundle &model = *st.model;
    const Config &cfg = st.config;
    const JobRequest &r = c.r;
    const HistoryView &hv = c.hv;
    const FeatureVector &x = c.x;
    const Score &s = c.s;
    out.decision = c.d;
    Decision &d = out.decision;
    counters_.scored.fetch_add(1, std::memory_order_relaxed);
    if (d.exempt) counters_.exempt.fetch_add(1, std::memory_order_relaxed);

    if (out.token.empty() && !is_update) issue_token(r, x, out, 64 + model.model_id().size());

    if (d.action == Action::Annotate) {
        // A job that is acted on carries what its history suggests, for the user and for tools reading
        // sacct. The text is written once, into the admin comment when that is annotated.
        std::string suggestion = d.flagged ? suggestion_fields(suggest(s.top_class, r, hv)) : std::string();
        suggestion += script_field;  // what the script shows for certain, whatever the score
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
            else counters_.comment_full.fetch_add(1, std::memory_order_relaxed);
        }
        counters_.annotated.fetch_add(1, std::memory_order_relaxed);
    }

    // "-" when not computed: the log level can change between judge and here (scontrol setdebug).
    const char *cls = s.classified ? outcome_name(kFailureClassOutcomes[s.top_class]) : "-";
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
            counters_.rejected.fetch_add(1, std::memory_order_relaxed);
        } else {
            if (d.override_used) counters_.overrides.fetch_add(1, std::memory_order_relaxed);
            counters_.warned.fetch_add(1, std::memory_order_relaxed);
        }
    }

    // slurmctld's log: acted-on (and would-be) decisions at info, the rest at debug.
    bool info = d.action == Action::Warn || d.action == Action::Reject || (cfg.mode == Mode::Shadow && d.flagged);
    if (info || debug_enabled()) {
        char line[512];
        const char *verb = is_update ? "update" : "submit";
        char waste[128] = "";
        if (d.by_waste)
            std::snprintf(waste, sizeof waste, " cost=%.1f expected_waste=%.1f budget=%.1f%s", d.cost, d.expected_waste,
                          d.budget, d.cheap ? " cheap" : d.cost_unbounded ? " cost-unbounded" : "");
        std::snprintf(line, sizeof line, "%s%s user=%s name=%s p=%.3f class=%s threshold=%.3f%s action=%s%s%s%s model=%s token=%s",
                      cfg.mode == Mode::Shadow ? "shadow " : "", verb, r.user.c_str(), quote_log_field(r.name, 60).c_str(),
                      static_cast<double>(s.p_fail), cls, d.threshold, waste,
                      cfg.mode == Mode::Shadow && d.flagged && !d.exempt ? "would-act" : action_name(d.action),
                      d.exempt ? " exempt" : "", d.override_used ? " override" : "",
                      d.below_min_history ? " below-min-history" : d.no_history ? " no-history" : d.privileged ? " privileged" : d.below_target ? " below-target" : "",
                      model.model_id().c_str(), out.token.c_str());
        if (info) log_info(line);
        else log_debug(line);
    }

    // The feature vector goes to the log through the bounded queue; never waits.
    if (FeatureLogWriter *w = log_features ? st.feature_log.get() : nullptr) {
        FeatureLogEntry e;
        e.token = out.token;
        e.scored_at = r.submit_time;
        e.model_id = std::shared_ptr<const std::string>(st.model, &model.model_id());  // shares the bundle: no copy
        e.uid = uid;
        e.user = r.user;
        e.name = r.name;
        e.p_fail = s.p_fail;
        e.top_class = s.classified && d.flagged ? static_cast<int8_t>(s.top_class) : int8_t(-1);  // NULL below the threshold
        e.action = static_cast<uint8_t>(d.action);
        e.threshold = static_cast<float>(d.threshold);
        e.x = x;
        e.script_fingerprint = r.script_fingerprint;
        e.script = std::move(script);
        e.update = is_update;
        w->push(std::move(e));
    }
}

namespace {
struct LatencyScope {
    LatencyHistogram &h;
    uint64_t t0 = monotonic_ns();
    ~LatencyScope() { h.record(monotonic_ns() - t0); }
};
}  // namespace

void Engine::issue_token(const JobRequest &r, const FeatureVector &x, SubmitOutcome &out, size_t more) {
    uint64_t t = splitmix64(token_seed_ ^ token_counter_.fetch_add(1, std::memory_order_relaxed));
    out.token = JoinToken::hex(t);
    // One allocation: the annotation (more bytes) usually follows the token.
    out.admin_comment_append.reserve(6 + out.token.size() + 1 + more);
    out.admin_comment_append.append("jfp:t=").append(out.token.view());
    append_submission_facts(out.admin_comment_append, r.array_size, x);
}

bool Engine::privileged(uint32_t uid) const {
    return std::find(opt_.trusted_uids.begin(), opt_.trusted_uids.end(), static_cast<uid_t>(uid)) != opt_.trusted_uids.end();
}

SubmitOutcome Engine::evaluate(const SubmitRequest &given) {
    LatencyScope timed{submit_latency_};
    SubmitOutcome out;
    counters_.evaluated.fetch_add(1, std::memory_order_relaxed);
    auto st = state();
    if (!st->config_present || st->config.mode == Mode::Off) return out;
    // Every request is judged, including one slurmctld may refuse after job_submit: jfp does not guess
    // its verdict. What a user sized is capped first (request_caps.h), so such a request costs little.
    SubmitRequest req = given;
    normalise(req);

    std::string_view comment = req.comment;
    if (auto n = neutralize(req.comment)) {
        out.new_comment = *n;
        counters_.neutralized.fetch_add(1, std::memory_order_relaxed);
    }
    std::string_view neutral_comment = out.new_comment ? std::string_view(*out.new_comment) : comment;
    if (!st->model) {
        counters_.unscored.fetch_add(1, std::memory_order_relaxed);
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
    const ScriptEvidence ev = find_script_evidence(*st, req);
    auto history_lock = read_history(*st);
    std::string user = user_name(*st, req.uid);
    // Scanning the script was a third of this call (bench/hotpath). A model that splits on no script
    // feature cannot be moved by one, so then the scan is left to the feature-log thread (which logs
    // the full vector for training) or, with no feature log, skipped.
    ScriptScan scan = ScriptScan::Now;
    DeferredScript deferred;
    if (req.has_script && !st->model->uses_script_features()) {
        if (st->feature_log) deferred = st->feature_log->defer(req.script);
        if (deferred.pending() || !st->feature_log) scan = ScriptScan::Later;
    }
    Candidate c;
    judge(*st, req, user, privileged(req.uid), neutral_comment, scan, nullptr, ev.counts, c);
    fill_outcome(*st, c, neutral_comment, req.uid, out, false, true, std::move(deferred), ev.annotation_field());
    history_lock = {};
    if (!ev.directives.ignored.empty()) judge_directives(*st, req, c.r, neutral_comment, ev.directives, out);
    if (!ev.modules.empty() || !ev.not_told.empty()) judge_modules(*st, req, c.r, neutral_comment, ev, out);
    if (st->script_archive && c.r.script_known && !out.token.empty()) archive_script(*st, req, c.r, out.token);
    return out;
}

// One line every stats_interval with what job_submit cost inside slurmctld and what it decided, for the
// interval just past; nothing when no job came.
void Engine::log_stats(bool final) {
    double interval = state()->config.stats_interval_seconds;
    if (interval <= 0) return;
    auto now = std::chrono::steady_clock::now();
    if (stats_last_.time_since_epoch().count() == 0) stats_last_ = started_;
    double elapsed = std::chrono::duration<double>(now - stats_last_).count();
    if (!final && elapsed < interval) return;
    stats_last_ = now;
    LatencyHistogram::Summary s = submit_latency_.take();
    uint64_t cur[] = {counters_.scored.load(), counters_.annotated.load(), counters_.warned.load(),
                      counters_.rejected.load(), counters_.unscored.load()};
    uint64_t d[5];
    for (int i = 0; i < 5; ++i) {
        d[i] = cur[i] - stats_prev_[i];
        stats_prev_[i] = cur[i];
    }
    LatencyHistogram::Summary rpc = update_latency_.per_rpc.take(), rec = update_latency_.per_record.take();
    if (s.count == 0 && rec.count == 0 && rpc.count == 0) return;
    char line[400];
    std::snprintf(line, sizeof line, "stats: %" PRIu64 " submissions in the last %.0f s%s; ", s.count, elapsed,
                  final ? " (plugin unloading)" : "");
    std::string msg = line;
    if (s.count > 0) {
        std::snprintf(line, sizeof line, "job_submit p50 %.1f us, p99 %.1f us, max %.1f us; ", s.p50_us, s.p99_us, s.max_us);
        msg += line;
    }
    std::snprintf(line, sizeof line,
                  "scored %" PRIu64 ", annotated %" PRIu64 ", warned %" PRIu64 ", rejected %" PRIu64 ", unscored %" PRIu64,
                  d[0], d[1], d[2], d[3], d[4]);
    msg += line;
    // Updates (scontrol update): one RPC may reach many job records, under slurmctld's job write lock all along.
    // An RPC is counted when it has ended (update_latency.h), maybe in the next interval.
    if (rec.count > 0 || rpc.count > 0) {
        msg += "; updates: " + counted(rec.count, "job record", "job records") + ", " + counted(rpc.count, "RPC ended", "RPCs ended");
        if (rpc.count > 0) {
            std::snprintf(line, sizeof line, "; per RPC p50 %.1f us, max %.1f us", rpc.p50_us, rpc.max_us);
            msg += line;
        }
        if (rec.count > 0) {
            std::snprintf(line, sizeof line, "; per record p50 %.1f us, p99 %.1f us", rec.p50_us, rec.p99_us);
            msg += line;
        }
    }
    log_info(msg);
}

// Every metrics_interval, the counters in Prometheus' text format (metrics_file.h): cheap atomics and one small
// file, on the background thread.
void Engine::write_metrics(bool now) {
    auto st = state();
    const Config &cfg = st->config;
    if (cfg.metrics_file.empty()) return;
    auto t = std::chrono::steady_clock::now();
    if (!now && metrics_last_.time_since_epoch().count() != 0 &&
        std::chrono::duration<double>(t - metrics_last_).count() < cfg.metrics_interval_seconds)
        return;
    metrics_last_ = t;
    MetricsSnapshot m;
    m.cluster = opt_.cluster_name;
    m.mode = st->config_present ? mode_name(cfg.mode) : "off";
    const int64_t epoch = static_cast<int64_t>(::time(nullptr));
    const int64_t local_offset = naive_local_now() - epoch;  // naive-local minus epoch, now
    if (st->model) {
        m.model_id = st->model->model_id();
        m.model_kind = st->model->is_rules() ? "rules" : "tree";
        m.threshold = cfg.threshold.value_or(st->model->threshold());
        // The loader does not check "created": a bundle may hold anything there (value() would throw).
        auto created = st->model->metadata().find("created");
        if (created != st->model->metadata().end() && created->is_string())
            if (auto c = parse_sacct_time(created->get<std::string>().substr(0, 19))) m.model_created_epoch = *c;
    }
    {
        auto lock = read_history(*st);
        if (st->history) {
            m.history_jobs = st->history->jobs;
            if (st->history->latest_end > 0) m.history_latest_end_epoch = st->history->latest_end - local_offset;
        }
    }
    m.scored = counters_.scored.load();
    m.annotated = counters_.annotated.load();
    m.warned = counters_.warned.load();
    m.rejected = counters_.rejected.load();
    m.overridden = counters_.overrides.load();
    m.exempt = counters_.exempt.load();
    m.unscored = counters_.unscored.load();
    m.updates = counters_.modified.load();
    m.updates_not_owner = counters_.modify_not_owner.load();
    m.ignored_directives = counters_.ignored_directives.load();
    m.missing_modules = counters_.missing_modules.load();
    m.faults = counters_.faults.load();
    m.model_loads = counters_.model_loads.load();
    m.history_loads = counters_.history_loads.load();
    if (st->feature_log) m.feature_log_dropped = st->feature_log->dropped();
    ScriptArchiveCounters a = script_archive_counters();
    m.archive_archived = a.archived;
    m.archive_dropped = a.dropped;
    m.archive_failed = a.failed;
    m.budget_refused_feature_log = write_budget_->refused(UserWriteBudget::File::FeatureLog);
    m.budget_refused_archive = write_budget_->refused(UserWriteBudget::File::ScriptArchive);
    m.users_over_budget = write_budget_->users_over();
    for (int b = 0; b < LatencyHistogram::kBuckets; ++b) {
        const auto i = static_cast<size_t>(b);
        m.latency[i] = submit_latency_.cumulative(b);
        m.update_rpc_latency[i] = update_latency_.per_rpc.cumulative(b);
        m.update_record_latency[i] = update_latency_.per_record.cumulative(b);
    }
    m.written_epoch = epoch;
    m.interval_seconds = cfg.metrics_interval_seconds;
    try {
        write_metrics_file(cfg.metrics_file, prometheus_text(m));
        metrics_error_said_.clear();
    } catch (const std::exception &e) {
        if (metrics_error_said_ != e.what()) log_warning(std::string("metrics file: ") + e.what() +
                                                         " (check metrics_file in jfp.conf and that SlurmUser can write its directory)");
        metrics_error_said_ = e.what();
    }
}

// Called on the submit path: no mutex (the background thread, preempted while holding it, would stall
// slurmctld's thread), and one wake until the background thread takes it. A wake
// landing between its look at kick_ and its wait is lost: it looks again at reload_interval (1 s default).
void Engine::kick() {
    if (!kick_.exchange(true)) wake_.notify_one();
}


Mode Engine::mode() const { return state()->config_present ? state()->config.mode : Mode::Off; }

// The submit path's share of archiving: one copy of the script (and environment) into the queue, when
// the budget has room; hashing, compression and SQLite happen on the archive's thread.
void Engine::archive_script(const State &st, const SubmitRequest &req, const JobRequest &r, const JoinToken &token) {
    ScriptArchiveWriter &w = *st.script_archive;
    // What the archive keeps is bounded like everything else a user sizes (request_caps.h): a head of the
    // script, and the environment's entries that fit the same size (its entries were capped by normalise()).
    const size_t script_bytes = std::min(r.script.size(), RequestCaps::kArchiveHead);
    bool env = st.config.script_archive_env && req.env && req.env_count;
    size_t env_bytes = 0, env_entries = 0;
    if (env)
        for (; env_entries < req.env_count; ++env_entries) {
            const char *v = req.env[env_entries];
            size_t n = v ? strnlen(v, RequestCaps::kArchiveHead) + 1 : 0;
            if (env_bytes + n > RequestCaps::kArchiveHead) break;
            env_bytes += n;
        }
    auto bytes = static_cast<int64_t>(script_bytes + env_bytes + sizeof(ScriptArchiveEntry));
    if (!w.reserve(bytes)) {
        w.count_drop();
        return;
    }
    ScriptArchiveEntry e;
    e.meta.token = token.str();
    e.meta.cluster = opt_.cluster_name;
    e.meta.submitted = r.submit_time;
    e.meta.uid = req.uid;
    e.meta.user = r.user;
    e.meta.name = r.name;
    e.meta.work_dir = req.work_dir;
    e.meta.script_bytes = static_cast<int64_t>(r.script.size());  // as submitted, when only a head is kept
    e.script.assign(r.script.substr(0, script_bytes));
    if (env) {
        e.env.reserve(env_bytes);
        for (size_t i = 0; i < env_entries; ++i) {
            if (!req.env[i]) continue;
            e.env.append(req.env[i], strnlen(req.env[i], RequestCaps::kArchiveHead));
            e.env.push_back('\0');  // as /proc/PID/environ: NAME=value, each ended by NUL
        }
        e.has_env = true;
    }
    w.push(std::move(e), bytes);
}

ScriptArchiveCounters Engine::script_archive_counters() const {
    auto st = state();
    return st && st->script_archive ? st->script_archive->counters() : ScriptArchiveCounters{};
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

// #SBATCH lines sbatch ignored: found in the script with certainty, acted on by ignored_directives in
// jfp.conf whatever the model says. A script without such a line costs a scan that stops at its first
// command and finds no "#SBATCH" after it.
Engine::ScriptEvidence Engine::find_script_evidence(const State &st, const SubmitRequest &req) const {
    ScriptEvidence ev;
    if (!req.has_script) return ev;
    // Counted even when jfp.conf turns the finding off: the model's feature must not depend on the setting.
    DirectiveScan directives = find_ignored_directives(req.script);
    ev.counts.ignored_sbatch = count_ignored_directives(directives);
    if (st.config.ignored_directives != FindingAction::Off) ev.directives = std::move(directives);
    // Only with an index, and not when turned off (the scan is what `off` saves).
    if (st.modules && st.config.missing_modules != FindingAction::Off) {
        ModuleScan scan = find_module_loads(req.script);
        if (!scan.loads.empty()) ev.modules = missing_modules(scan, *st.modules, &ev.not_told);
        ev.counts.missing_modules = static_cast<double>(ev.modules.size());
    }
    return ev;
}

std::string Engine::ScriptEvidence::annotation_field() const {
    if (directives.ignored.empty() && modules.empty()) return {};
    std::string f = ",script=";
    if (!directives.ignored.empty()) f += "ignored_sbatch";
    if (!modules.empty()) f += directives.ignored.empty() ? "missing_module" : "+missing_module";
    return f;
}

void Engine::judge_directives(const State &st, const SubmitRequest &req, const JobRequest &r, std::string_view comment,
                              const DirectiveScan &scan, SubmitOutcome &out) {
    if (scan.ignored.empty()) return;
    counters_.ignored_directives.fetch_add(1, std::memory_order_relaxed);
    ScriptFindingsVerdict v = judge_script_findings(st.config, r, scan, comment, privileged(req.uid));
    if (!v.message.empty()) out.user_message += (out.user_message.empty() ? "" : "\n") + v.message;
    std::string lines;
    for (const auto &d : scan.ignored) lines += (lines.empty() ? "" : ",") + std::to_string(d.line);
    if (v.reject && !out.reject) counters_.rejected.fetch_add(1, std::memory_order_relaxed);
    out.reject = out.reject || v.reject;
    LogLevel level = v.reject ? LogLevel::Info : LogLevel::Debug;
    log_msg(level, "uid " + std::to_string(req.uid) + " name=" + quote_log_field(r.name) + ": sbatch ignored #SBATCH line(s) " +
                       lines + (v.reject ? ": rejected (ignored_directives = reject)" : v.message.empty() ? ": not said (mode)" : ": warned"));
}

// The script's module loads against the site's index: a name that exists nowhere is said with the line
// and the closest names; what the index cannot judge is logged at debug level only.
void Engine::judge_modules(const State &st, const SubmitRequest &req, const JobRequest &r, std::string_view comment,
                           const ScriptEvidence &ev, SubmitOutcome &out) {
    const std::vector<std::string> &not_told = ev.not_told;
    const std::vector<ModuleFinding> &found = ev.modules;
    if (!not_told.empty() && debug_enabled()) {
        std::string why;
        for (const auto &n : not_told) why += (why.empty() ? "" : "; ") + n;
        log_msg(LogLevel::Debug, "uid " + std::to_string(req.uid) + " name=" + quote_log_field(r.name) +
                                     ": module loads not judged: " + quote_log_field(why, 600));
    }
    if (found.empty()) return;
    counters_.missing_modules.fetch_add(1, std::memory_order_relaxed);
    ScriptFindingsVerdict v = judge_module_findings(st.config, r, found, comment, privileged(req.uid));
    if (!v.message.empty()) out.user_message += (out.user_message.empty() ? "" : "\n") + v.message;
    if (v.reject && !out.reject) counters_.rejected.fetch_add(1, std::memory_order_relaxed);
    out.reject = out.reject || v.reject;
    if (!v.reject && !debug_enabled()) return;
    std::string names;
    for (const auto &f : found) names += (names.empty() ? "" : ",") + f.load.name;
    log_msg(v.reject ? LogLevel::Info : LogLevel::Debug,
            "uid " + std::to_string(req.uid) + " name=" + quote_log_field(r.name) + ": modules not on this cluster: " +
                quote_log_field(names, 200) +
                (v.reject ? ": rejected (missing_modules = reject)" : v.message.empty() ? ": not said (mode)" : ": warned"));
}

bool Engine::flush_for_exit(std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    auto left = [&] {
        return std::max(std::chrono::milliseconds(0), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                           deadline - std::chrono::steady_clock::now()));
    };
    auto st = state();
    bool done = true;
    if (st && st->feature_log) done = st->feature_log->flush_for(left()) && done;
    if (st && st->script_archive) done = st->script_archive->flush_for(left()) && done;
    return done;
}

}  // namespace jfp
