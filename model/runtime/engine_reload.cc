// The engine's background half: jfp.conf, the model bundle, the history store, the feature log and
// slurm.conf's partition defaults, each reloaded when its file changes, into a new published State.
#include "model/runtime/engine.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>

#include "jfp_config.h"

#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#endif

namespace jfp {

namespace {

// A bundle jfp train writes is about 100 KiB (docs/testing.md); a file of hundreds of MiB is not one, and
// is not read into slurmctld.
constexpr size_t kMaxBundleBytes = size_t{256} << 20;
// Lmod's spider-json of a large site (thousands of modules) is a few MiB.
constexpr size_t kMaxModulesIndexBytes = size_t{64} << 20;

int64_t ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
}

void trim_heap() {
#ifdef HAVE_MALLOC_TRIM
    malloc_trim(0);  // JSON parsing leaves freed memory glibc would otherwise keep in slurmctld
#endif
}

// What the threshold reached on the validation window, as jfp train recorded it: an admin choosing a
// mode should know whether it is the target precision or train's best-F1 fallback.
std::string threshold_note(const ModelBundle &b) {
    const nlohmann::json &m = b.metadata();
    auto c = m.find("threshold_choice");
    if (c == m.end() || !c->is_object()) return " (its validation precision not recorded)";
    double p = -1, r = -1, target = -1, lower = -1, confidence = 0;
    bool reached = false;
    try {
        p = c->value("precision", -1.0);
        lower = c->value("precision_lower_bound", -1.0);  // absent before jfp 0.4: the point estimate only
        confidence = c->value("confidence", 0.0);
        r = c->value("recall", -1.0);
        reached = c->value("target_reached", false);
        target = m.value("target_precision", -1.0);
    } catch (const nlohmann::json::exception &) {
        return " (its validation precision not readable)";
    }
    char bound[64] = "";
    if (lower >= 0 && confidence > 0)
        std::snprintf(bound, sizeof bound, " (at least %.2f at %.0f%% confidence)", lower, confidence * 100);
    char out[240];
    if (reached)
        std::snprintf(out, sizeof out, ": validation precision %.2f%s, recall %.2f, target %.2f reached", p, bound, r, target);
    else
        std::snprintf(out, sizeof out, ": validation precision %.2f%s, recall %.2f, target %.2f NOT reached (best-F1 threshold)",
                      p, bound, r, target);
    return out;
}

std::optional<std::string> passwd_name(uint32_t uid) {
    struct passwd pw {};
    struct passwd *res = nullptr;
    std::vector<char> buf(16384);
    if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &res) != 0 || !res) return std::nullopt;
    return std::string(res->pw_name);
}

std::optional<uint32_t> passwd_uid(const std::string &name) {
    struct passwd pw {};
    struct passwd *res = nullptr;
    std::vector<char> buf(16384);
    if (getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &res) != 0 || !res) return std::nullopt;
    return static_cast<uint32_t>(res->pw_uid);
}

}  // namespace

// The feature log's and the script archive's writers follow the config. Called as soon as a config is
// accepted, before it is published: a job scored under a config that names an archive finds the archive's
// writer in the same snapshot (before, a job in the few milliseconds of a reload had its script dropped).
bool Engine::follow_writers(State &next) {
    bool changed = false;
    const Config &cfg = next.config;
    std::string flp = cfg.resolved_feature_log_path();
    if (write_budget_->limit() != cfg.user_write_bytes_per_day) write_budget_->set_limit(cfg.user_write_bytes_per_day);
    if (opt_.background && flp != feature_log_path_) {
        write_budget_->set_source(UserWriteBudget::File::FeatureLog,
                                  [flp](int64_t since) { return feature_log_bytes_by_user_since(flp, since); });
        replace_writer(next.feature_log, std::make_shared<FeatureLogWriter>(flp, cfg.log_queue_size, FeatureLogWriter::kMaxHeadsInUse,
                                                                            FeatureLogWriter::kIdleWait, write_budget_));
        feature_log_path_ = flp;
        changed = true;
    }
    const std::string &sap = cfg.script_archive_path;
    if (opt_.background && (sap != script_archive_path_ || cfg.script_archive_queue_bytes != script_archive_budget_)) {
        write_budget_->set_source(UserWriteBudget::File::ScriptArchive, archive_bytes_source(sap));
        replace_writer(next.script_archive,
                       sap.empty() ? nullptr
                                   : std::make_shared<ScriptArchiveWriter>(sap, kArchiveQueueEntries, cfg.script_archive_queue_bytes,
                                                                           write_budget_));
        if (sap != script_archive_path_)
            log_info(sap.empty() ? std::string("script archive off")
                                 : "archiving job scripts in " + sap + (cfg.script_archive_env ? " with their environment" : ""));
        script_archive_path_ = sap;
        script_archive_budget_ = cfg.script_archive_queue_bytes;
        changed = true;
    }
    return changed;
}

void Engine::poll(bool load_history) {
    auto cur = state();
    auto next = std::make_shared<State>(*cur);
    bool changed = false;

    // ---- jfp.conf
    FileSig cs = file_sig(opt_.config_path);
    if (cs != config_sig_) {
        config_sig_ = cs;
        if (!cs.exists) {
            if (next->config_present) log_info("config " + opt_.config_path + " was removed: the plugin is off");
            next->config = Config();
            next->config.mode = Mode::Off;
            next->config_present = false;
            next->config_note = "missing, plugin is off";
            changed = true;
        } else {
            // A jfp.conf is a few hundred bytes; a huge file is the wrong file, and is not read into slurmctld.
            TrustedRead f = read_trusted_file(opt_.config_path, opt_.trusted_uids, kMaxConfigBytes);
            std::string problem = f.problem;
            ConfigParseResult r;
            if (problem.empty()) r = f.too_big ? config_too_big(opt_.config_path) : parse_config(f.out, opt_.config_path);
            if (problem.empty() && r.ok()) {
                bool was_present = next->config_present;
                const std::string changes = was_present ? config_changes(next->config, r.config) : std::string();
                next->config = r.config;
                next->config_present = true;
                next->config_note = "loaded";
                last_config_error_.clear();
                config_faults_.clear();
                changed = true;
                follow_writers(*next);
                publish(next);
                if (was_present)
                    log_info("reloaded " + opt_.config_path + ": mode=" + mode_name(r.config.mode) +
                             (changes.empty() ? "; nothing changed" : "; changed: " + changes));
            } else {
                std::string err = problem.empty() ? r.error_text() : "refused: " + problem;
                if (err != last_config_error_) {
                    config_faults_.report("config " + opt_.config_path + " not used (" + err + "); " +
                              (next->config_present ? "keeping the last good config" : "the plugin stays off"), err);
                    last_config_error_ = err;
                }
                next->config_note = (next->config_present ? "invalid, keeping the last good config: " : "invalid, plugin is off: ") + err;
                changed = true;
            }
        }
    }
    if (changed) publish(next);
    const Config &cfg = next->config;

    // ---- the model bundle
    if (next->config_present) {
        FileSig ms = file_sig(cfg.model_path);
        if (ms != model_sig_ || cfg.model_path != model_path_loaded_) {
            model_sig_ = ms;
            model_path_loaded_ = cfg.model_path;
            std::string err;
            next->model_missing = !ms.exists;
            if (!ms.exists) {
                // The guide's layout: trained beside it (model.new.json), installed through the publish gate.
                const std::string &m = cfg.model_path;
                const bool json = m.size() > 5 && m.compare(m.size() - 5, 5, ".json") == 0;
                const std::string beside = json ? m.substr(0, m.size() - 5) + ".new.json" : m + ".new";
                err = "missing (train one beside it, jfp train --out " + beside + ", and install it with jfp publish " +
                      beside + ": admin guide, Enable)";
            } else if (TrustedRead f = read_trusted_file(cfg.model_path, opt_.trusted_uids, kMaxBundleBytes); !f.problem.empty()) {
                err = "refused: " + f.problem;
            } else if (f.too_big) {
                err = "larger than " + std::to_string(kMaxBundleBytes >> 20) + " MiB: not a model bundle; refused unread";
            } else {
                try {
                    auto t0 = std::chrono::steady_clock::now();
                    auto b = std::make_shared<const ModelBundle>(ModelBundle::load_text(f.out, cfg.model_path));
                    trim_heap();
                    char buf[400];
                    std::snprintf(buf, sizeof buf, "loaded model %s (%s, threshold %.4f%s, %zu reference rows checked) in %" PRId64 " ms",
                                  b->model_id().c_str(), b->describe_kind().c_str(), b->threshold(),
                                  threshold_note(*b).c_str(), b->reference_rows_checked(), ms_since(t0));
                    next->model = b;
                    next->model_note = std::string("model ") + b->model_id();
                    counters_.model_loads.fetch_add(1);
                    publish(next);  // score with it now, not after the history has loaded too
                    // A bundle of an earlier schema scores as it did, blind to the features added since.
                    std::string older;
                    if (b->feature_schema() != kFeatureSchemaVersion)
                        older = "; trained on feature schema " + std::to_string(b->feature_schema()) + ", read as the first " +
                                std::to_string(feature_count_of_schema(b->feature_schema())) + " of this jfp's " +
                                std::to_string(kNumFeatures) + " features: retrain (jfp train) for it to learn from the others";
                    log_info(std::string(buf) + " from " + cfg.model_path + older);
                    last_model_error_.clear();
                    model_faults_.clear();
                    changed = true;
                } catch (const std::exception &e) {
                    err = e.what();
                }
            }
            if (!err.empty()) {
                if (err != last_model_error_) {
                    const std::string line = "model " + cfg.model_path + " not used: " + err + "; " +
                                             (next->model ? "keeping model " + next->model->model_id() : "jobs pass unscored");
                    // No model file and none loaded: a site waiting for its first model (the guide's Enable), not a fault.
                    if (next->model_missing && !next->model) log_msg(LogLevel::Warning, line);
                    else model_faults_.report(line, err);
                    unscored_log_.hold();  // that line says it: the reminder comes an interval later
                    last_model_error_ = err;
                }
                // The init line quotes the note in parentheses: the missing file's remedy is in the line above.
                next->model_note = (next->model ? "keeping " + next->model->model_id() + "; " : "") +
                                   (next->model_missing ? std::string("missing: none published yet") : err);
                changed = true;
            }
        }

        // ---- the history store: reload when its file was replaced or another connection committed
        FileSig ss = file_sig(cfg.store_path);
        bool replaced = ss.exists != store_sig_.exists || ss.inode != store_sig_.inode ||
                        cfg.store_path != store_path_loaded_;
        bool committed = false;
        if (ss.exists && !replaced && store_watch_) {
            try {
                Stmt v(*store_watch_, "PRAGMA data_version");
                int64_t dv = v.step() ? v.int_at(0) : -1;
                committed = dv != store_data_version_;
            } catch (const std::exception &) {
                committed = true;
            }
        }
        bool retry = !last_store_error_.empty() && ss.exists &&
                     std::chrono::steady_clock::now() - store_tried_ >= kStoreRetry;
        if (load_history && (replaced || committed || retry)) {
            store_tried_ = std::chrono::steady_clock::now();
            store_sig_ = ss;
            store_path_loaded_ = cfg.store_path;
            // The watch opens before the load: a commit that lands during the load is seen next time.
            store_watch_.reset();
            store_data_version_ = -1;
            if (ss.exists) {
                try {
                    store_watch_ = std::make_unique<Db>(cfg.store_path, SQLITE_OPEN_READONLY);
                    Stmt v(*store_watch_, "PRAGMA data_version");
                    store_data_version_ = v.step() ? v.int_at(0) : -1;
                } catch (const std::exception &) {
                    store_watch_.reset();
                }
            }
            std::string err;
            if (!ss.exists) {
                err = "missing (fill it with jfp ingest --db " + cfg.store_path + ")";
            } else {
                try {
                    // A commit to the store already loaded: apply what changed; anything else loads it whole.
                    // After a failed attempt the history held came from an earlier file (a store copied
                    // in place is seen half-written, then "committed"): only a whole load is right.
                    bool in_place = committed && !replaced && last_store_error_.empty() && next->history;
                    std::string loaded;
                    if (!(in_place && update_history(*next, cfg.store_path)))
                        loaded = load_whole_history(*next, cfg.store_path);
                    publish(next);
                    // Said once in effect: a test (or an admin) that reads the line may submit at once.
                    if (!loaded.empty()) log_info(loaded);
                    last_store_error_.clear();
                    store_faults_.clear();
                    changed = true;
                } catch (const std::exception &e) {
                    err = e.what();
                }
            }
            if (!err.empty()) {
                if (err != last_store_error_) {
                    store_faults_.report("history store " + cfg.store_path + " not used: " + err + "; " +
                              (next->history ? "keeping the last history loaded" : "scoring without history"), err);
                    last_store_error_ = err;
                }
                next->history_note = (next->history ? "keeping the last history; " : "") + err;
                changed = true;
            }
        }

        if (follow_writers(*next)) changed = true;
        if (load_modules_index(*next)) changed = true;
    }

    // ---- slurm.conf: partition defaults
    if (!opt_.slurm_conf_path.empty()) {
        FileSig sc = file_sig(opt_.slurm_conf_path);
        // A file slurm.conf includes (its nodes or partitions, often) changes the defaults as much.
        bool included_changed = std::any_of(slurm_conf_included_.begin(), slurm_conf_included_.end(),
                                            [](const auto &f) { return file_sig(f.first) != f.second; });
        if (sc != slurm_conf_sig_ || included_changed) {
            slurm_conf_sig_ = sc;
            std::string err;
            auto d = std::make_shared<const ClusterDefaults>(load_slurm_conf(opt_.slurm_conf_path, &err));
            if (!err.empty()) log_error("partition defaults: " + err + "; unset requests stay unknown");
            for (const auto &problem : d->problems)
                log_error("slurm.conf: " + problem + "; jfp prices that partition's jobs by CPU (fix it as slurm.conf(5) says)");
            slurm_conf_included_.clear();
            for (const auto &f : d->included) slurm_conf_included_.emplace_back(f, file_sig(f));
            next->defaults = d;
            changed = true;
        }
    }

    if (changed) publish(next);
    note_below_target(*next);
    note_waste(*next);
    cur.reset();  // the snapshot this poll started from may hold a writer just retired
    close_retired_writers();
    resolve_pending_uids();
    config_faults_.tick();
    modules_faults_.tick();
    model_faults_.tick();
    store_faults_.tick();
}

// The site's module index (modules_index): reloaded when its file changes, checked as the model is; a bad
// file keeps the last good index of the same path.
bool Engine::load_modules_index(State &next) {
    const std::string &path = next.config.modules_index;
    FileSig sig = path.empty() ? FileSig() : file_sig(path);
    if (path == modules_path_loaded_ && sig == modules_sig_) return false;
    const bool same_path = path == modules_path_loaded_;
    modules_path_loaded_ = path;
    modules_sig_ = sig;
    if (path.empty()) {
        bool had = next.modules != nullptr;
        next.modules.reset();
        if (had) log_info("module check off (no modules_index)");
        return had;
    }
    std::string err;
    if (!sig.exists) {
        err = "missing (write it with Lmod's spider: see jfp.conf(5), modules_index)";
    } else if (TrustedRead f = read_trusted_file(path, opt_.trusted_uids, kMaxModulesIndexBytes); !f.problem.empty()) {
        err = "refused: " + f.problem;
    } else if (f.too_big) {
        err = "larger than " + std::to_string(kMaxModulesIndexBytes >> 20) + " MiB: not a module index; refused unread";
    } else {
        try {
            auto t0 = std::chrono::steady_clock::now();
            auto ix = std::make_shared<const ModuleIndex>(ModuleIndex::parse(f.out));
            trim_heap();
            next.modules = ix;
            last_modules_error_.clear();
            modules_faults_.clear();
            log_info("loaded module index " + path + ": " + std::to_string(ix->modules()) + " modules of " +
                     std::to_string(ix->names()) + " names in " + std::to_string(ms_since(t0)) + " ms");
            return true;
        } catch (const std::exception &e) {
            err = e.what();
        }
    }
    if (!same_path) next.modules.reset();  // an index of another path says nothing about this one
    if (err != last_modules_error_) {
        modules_faults_.report("module index " + path + " not used: " + err + "; " +
                                   (next.modules ? "keeping the last good index" : "no module check"),
                               err);
        last_modules_error_ = err;
    }
    return true;
}

// Said once for each model and mode: a model that missed its target precision warns where reject mode
// would refuse, unless reject_below_target.
void Engine::note_waste(const State &st) {
    const Config &c = st.config;
    const bool applies = st.model && st.config_present && c.decide_by == DecideBy::Waste;
    const double bundle_budget = st.model ? st.model->waste_budget() : kUnknown;
    std::string key;
    if (applies) {
        key = st.model->model_id() + "|" + (c.waste_budget ? number_text(*c.waste_budget) : std::string("-")) + "|" +
              std::to_string(c.partition_waste_budget.size() + c.account_waste_budget.size() + c.qos_waste_budget.size());
    }
    if (key == waste_said_) return;
    waste_said_ = key;
    if (!applies) return;
    const size_t scoped = c.partition_waste_budget.size() + c.account_waste_budget.size() + c.qos_waste_budget.size();
    const std::string more = scoped ? " (and " + std::to_string(scoped) + " per-partition, -account or -QOS budgets)" : "";
    if (c.waste_budget)
        log_info("deciding by waste: jobs whose expected waste reaches " + number_text(*c.waste_budget) +
                 " billing-hours (core-hours where slurm.conf sets no TRESBillingWeights) are acted on" + more);
    else if (known(bundle_budget) && !st.model->waste_unit().empty() &&
             st.model->waste_unit() != st.defaults->billing_rule(st.defaults->default_partition).unit())
        log_warning("decide_by = waste: model " + st.model->model_id() + "'s budget is in " + st.model->waste_unit() +
                    ", and slurm.conf prices jobs in " + st.defaults->billing_rule(st.defaults->default_partition).unit() +
                    ": it is not used where the units differ (those jobs are judged by probability); train with this "
                    "slurm.conf (jfp train --slurm-conf) or set waste_budget");
    else if (known(bundle_budget))
        log_info("deciding by waste: model " + st.model->model_id() + "'s budget, " + number_text(bundle_budget) + " " +
                 (st.model->waste_unit().empty() ? std::string("billing-hours") : st.model->waste_unit()) + more);
    else if (scoped)
        log_warning("decide_by = waste: no waste_budget in jfp.conf and model " + st.model->model_id() +
                    " records none: only jobs under a per-partition, -account or -QOS budget are judged by waste, the "
                    "rest by probability");
    else
        log_warning("decide_by = waste: no waste_budget in jfp.conf and model " + st.model->model_id() +
                    " records none (jfp train says why): every job is judged by probability; set waste_budget");
}

void Engine::note_below_target(const State &st) {
    bool applies = st.model && st.config_present && st.config.mode == Mode::Reject && st.model->below_target();
    std::string key = applies ? st.model->model_id() + (st.config.reject_below_target ? "+" : "-") : std::string();
    if (key == below_target_said_) return;
    below_target_said_ = key;
    if (!applies) return;
    std::string what = "model " + st.model->model_id() + " did not reach its target precision on validation" +
                       threshold_note(*st.model);
    if (st.config.reject_below_target)
        log_warning(what + "; reject_below_target = yes: it rejects jobs anyway");
    else
        log_warning(what + "; in reject mode it warns instead of rejecting (train on more history, or set "
                           "reject_below_target = yes to reject anyway)");
}

// Applies the store's changes to the published snapshot in place, a chunk at a time under the history
// lock. False when a full load is needed (logged with the reason); the snapshot is then untouched.
bool Engine::update_history(State &next, const std::string &store_path) {
    auto t0 = std::chrono::steady_clock::now();
    HistoryStore store(store_path, HistoryStore::Access::ReadOnly);
    HistorySnapshot &snap = *next.history;
    auto u = update_history_snapshot(snap, store, [&](const std::function<void()> &write) {
        std::unique_lock<std::shared_mutex> lock(history_mu_);
        write();
        history_generation_.fetch_add(1, std::memory_order_release);
    });
    if (u.full_load_reason) {
        log_info("history store " + store_path + " changed: loading it whole, as " + *u.full_load_reason);
        return false;
    }
    auto names = unknown_user_uids(snap);
    if (!names.empty()) {
        std::unique_lock<std::shared_mutex> lock(history_mu_);
        for (auto &[uid, name] : names) snap.uid_names.emplace(uid, std::move(name));
        history_generation_.fetch_add(1, std::memory_order_release);
    }
    uint64_t jobs;
    {
        std::shared_lock<std::shared_mutex> lock(history_mu_);
        jobs = snap.jobs;
    }
    next.history_note = std::to_string(jobs) + " jobs";
    counters_.history_updates.fetch_add(1);
    // One line per ingest that changed something: an admin (and a test) sees the ingest reach slurmctld.
    if (u.applied || u.queue_tokens)
        log_info("applied " + std::to_string(u.applied) + " changed jobs from " + store_path + " in " +
                 std::to_string(ms_since(t0)) + " ms (" + std::to_string(jobs) + " jobs" +
                 (u.queue_tokens ? "; " + std::to_string(*u.queue_tokens) + " queued job tokens" : std::string()) + ")");
    return true;
}

std::string Engine::load_whole_history(State &next, const std::string &store_path) {
    auto t0 = std::chrono::steady_clock::now();
    HistoryStore store(store_path, HistoryStore::Access::ReadOnly);
    // Its snapshot file and the changes since, when it has a usable one: a 10M-job store in about a second
    // instead of half a minute; otherwise the store replayed.
    std::shared_ptr<HistorySnapshot> snap;
    std::string how;
    ResumedHistory r = resume_history(store, snapshot_path_for(store_path), opt_.trusted_uids);
    if (r.ok) {
        snap = std::make_shared<HistorySnapshot>(std::move(r.snap));
        how = " (its snapshot at change " + std::to_string(r.file_seq) + ", then " + std::to_string(r.applied) +
              " changed jobs)";
    } else {
        log_info("history snapshot not used, replaying the store: " + r.why_not);
        snap = std::make_shared<HistorySnapshot>(load_history_snapshot(store));
    }
    passwd_tried_.clear();  // a full load asks again: users may have been added since
    for (auto &[uid, name] : unknown_user_uids(*snap)) snap->uid_names.emplace(uid, std::move(name));
    trim_heap();
    std::string msg = "loaded history of " + std::to_string(snap->jobs) + " jobs (" +
                      std::to_string(snap->index.jobs_added()) + " ended, " + std::to_string(snap->index.keys()) +
                      " keys) from " + store_path + how + " in " + std::to_string(ms_since(t0)) + " ms";
    next.history_note = std::to_string(snap->jobs) + " jobs";
    next.history = std::move(snap);
    counters_.history_loads.fetch_add(1);
    return msg;
}

// Users known only by name (exports without UID): ask the password database, here in the background,
// never on the submit path; each name once.
std::vector<std::pair<uint32_t, std::string>> Engine::unknown_user_uids(const HistorySnapshot &snap) {
    std::vector<std::pair<uint32_t, std::string>> out;
    std::unordered_map<std::string, uint32_t> known_names;
    {
        std::shared_lock<std::shared_mutex> lock(history_mu_);
        for (const auto &[uid, name] : snap.uid_names) known_names.emplace(name, uid);
        for (const auto &user : snap.users_without_uid)
            if (!known_names.count(user) && passwd_tried_.insert(user).second) out.emplace_back(0, user);
    }
    std::vector<std::pair<uint32_t, std::string>> found;
    for (auto &[uid, user] : out)
        if (auto u = passwd_uid(user)) found.emplace_back(*u, std::move(user));
    return found;
}

// Readers hold the published object; the loader keeps working on its own copy.
void Engine::publish(const std::shared_ptr<State> &working) {
    std::atomic_store(&state_, std::shared_ptr<const State>(std::make_shared<State>(*working)));
}

template <class W>
void Engine::replace_writer(std::shared_ptr<W> &slot, std::shared_ptr<W> next) {
    if (slot) retired_writers_.push_back(std::move(slot));
    if (next) live_writers_.fetch_add(1);
    slot = std::move(next);
}

// A retired writer that only this list still holds can be reached by no submission: destroying it here
// writes what it has queued and closes its file and thread.
void Engine::close_retired_writers() {
    auto held_elsewhere = [](const std::shared_ptr<void> &w) { return w.use_count() > 1; };
    auto keep = std::partition(retired_writers_.begin(), retired_writers_.end(), held_elsewhere);
    size_t closed = static_cast<size_t>(retired_writers_.end() - keep);
    retired_writers_.erase(keep, retired_writers_.end());
    live_writers_.fetch_sub(closed);
}

void Engine::resolve_pending_uids() {
    uint32_t uid;
    std::shared_ptr<std::unordered_map<uint32_t, std::string>> updated;
    while (uid_misses_.try_pop(uid)) {
        auto cur = std::atomic_load(&passwd_names_);
        if (cur->count(uid) || (updated && updated->count(uid))) continue;
        if (!updated) updated = std::make_shared<std::unordered_map<uint32_t, std::string>>(*cur);
        // A byte budget like every structure the plugin keeps: past it, start afresh (names are looked up
        // again as their users submit).
        if (updated->size() >= kMaxUserNames) updated->clear();
        auto name = passwd_name(uid);
        (*updated)[uid] = name ? *name : "uid:" + std::to_string(uid);
    }
    if (updated) std::atomic_store(&passwd_names_, std::shared_ptr<const std::unordered_map<uint32_t, std::string>>(updated));
}

}  // namespace jfp
