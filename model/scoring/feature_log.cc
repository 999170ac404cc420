#include "model/scoring/feature_log.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "model/util/background_thread.h"
#include "model/util/log.h"
#include "model/files/open_file_watch.h"
#include "model/files/sqlite_util.h"

namespace jfp {

DeferredScript::DeferredScript(std::string_view script, ScriptHeadPool &pool) {
    block_ = pool.acquire();
    if (!block_) return;  // not pending: the caller scans now
    pool_ = &pool;
    len_ = std::min(script.size(), ScriptHeadPool::block_size());
    std::memcpy(block_, script.data(), len_);
    bytes_ = static_cast<double>(script.size());
}

DeferredScript &DeferredScript::operator=(DeferredScript &&o) noexcept {
    if (this != &o) {
        release();
        pool_ = o.pool_;
        block_ = o.block_;
        len_ = o.len_;
        bytes_ = o.bytes_;
        o.pool_ = nullptr;
        o.block_ = nullptr;
        o.len_ = 0;
    }
    return *this;
}

void DeferredScript::release() {
    if (block_) pool_->release(block_);
    pool_ = nullptr;
    block_ = nullptr;
    len_ = 0;
}

ScriptTraits DeferredScript::scan() const {
    ScriptTraits t = scan_script(std::string_view(block_, len_));
    t.bytes = bytes_;
    return t;
}

namespace {

const char *kFeatureLogSchema = R"(
CREATE TABLE IF NOT EXISTS scored (
    token TEXT PRIMARY KEY,
    scored_at INTEGER NOT NULL,
    model_id TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    uid INTEGER,
    user TEXT,
    name TEXT,
    p_fail REAL,
    top_class INTEGER,  -- NULL: scored below its threshold, where the class is not computed
    action INTEGER,
    threshold REAL,
    features BLOB NOT NULL,
    script_fp INTEGER  -- script_fingerprint, as a signed 64-bit integer; NULL: none
);
)";

// feature_log_row_bytes summed in SQL (length of a BLOB cast: bytes, not characters).
std::unordered_map<uint32_t, uint64_t> bytes_by_user_since(Db &db, int64_t since) {
    std::unordered_map<uint32_t, uint64_t> out;
    Stmt q(db, ("SELECT uid, SUM(" +
                UserWriteBudget::row_bytes_sql("2 * length(CAST(token AS BLOB)) + length(CAST(model_id AS BLOB))"
                                               " + coalesce(length(CAST(user AS BLOB)), 0)"
                                               " + coalesce(length(CAST(name AS BLOB)), 0) + length(features)") +
                ") FROM scored WHERE scored_at >= ?1 GROUP BY uid")
                   .c_str());
    q.bind(1, since);
    while (q.step()) out[static_cast<uint32_t>(q.int_at(0))] += static_cast<uint64_t>(q.int_at(1));
    return out;
}

// Logs made before script fingerprints get the column in place.
void add_script_fp_column(Db &db) {
    Stmt c(db, "SELECT count(*) FROM pragma_table_info('scored') WHERE name = 'script_fp'");
    if (c.step() && c.int_at(0) > 0) return;
    db.exec("ALTER TABLE scored ADD COLUMN script_fp INTEGER");
}

}  // namespace

FeatureLogWriter::FeatureLogWriter(std::string path, size_t capacity, size_t max_heads_in_use,
                                   std::chrono::milliseconds idle_wait, std::shared_ptr<UserWriteBudget> budget)
    : path_(std::move(path)), heads_(max_heads_in_use, kIdleHeads), queue_(capacity), budget_(std::move(budget)),
      idle_wait_(idle_wait),
      // A queue smaller than twice the depth would fill before it woke the writer.
      wake_depth_(std::max<size_t>(1, std::min(kWakeDepth, queue_.capacity() / 2))),
      thread_([this] { run(); }) {}

FeatureLogWriter::~FeatureLogWriter() {
    {
        std::lock_guard<std::mutex> lk(mu_);  // not on the submit path: this wake must not be lost
        stop_.store(true);
        attention_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

bool FeatureLogWriter::push(FeatureLogEntry &&e) {
    if (!queue_.try_push(std::move(e))) {
        dropped_.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    // A futex wake is a system call on slurmctld's thread, and it made this call's p99 (one job in 32,
    // when it woke the writer every 32 entries). So the writer drains on its timer, and a submission
    // wakes it only in a burst, once kWakeDepth entries wait: before the idle script heads run out
    // (past them each head is a malloc here and a free there) and the queue fills.
    // seq_cst, as the writer's clear of woken_ and its look at pushed_: one of the two sides sees the other.
    const uint64_t pushed = pushed_.fetch_add(1) + 1;
    const uint64_t done = written_.load(std::memory_order_relaxed) + failed_.load(std::memory_order_relaxed);
    // While the writer is in its busy cadence (see run) it looks within kBusyWait anyway: no wake. seq_cst
    // against its store of polling_ before it reads pushed_, so a writer going to its long wait either
    // sees this entry or is woken by it.
    // Half a queue waiting wakes it whatever its cadence: a small queue could fill within one 2 ms look.
    if (pushed > done && pushed - done >= wake_depth_ &&
        (!polling_.load() || pushed - done >= queue_.capacity() / 2) && !woken_.exchange(true)) {
        wakes_.fetch_add(1, std::memory_order_relaxed);
        // Not through the writer's mutex: a writer (nice 10) preempted while holding it would stall
        // slurmctld's thread. A wake falling between the writer's last look and its wait is lost; the
        // writer then looks again at its timer (see run), and woken_ stays set until it does.
        cv_.notify_one();
    }
    return true;
}

void FeatureLogWriter::flush() { flush_for(std::chrono::milliseconds::max()); }

bool FeatureLogWriter::flush_for(std::chrono::milliseconds limit) {
    uint64_t target = pushed_.load();
    {
        std::lock_guard<std::mutex> lk(mu_);  // as the destructor: a flush's wake is never lost
        attention_ = true;
    }
    cv_.notify_all();
    return wait_for_count(target, [&] { return written_.load() + failed_.load() + over_budget_.load(); }, limit);
}

namespace {

// The script features of the row an update replaces (its submission's, scanned then), whatever schema
// that row was written in (a job submitted before an upgrade): its features are a prefix of ours.
void keep_script_features(Stmt &previous, FeatureLogEntry &e) {
    previous.reset();
    previous.bind(1, e.token.view());
    if (!previous.step()) return;
    int n = 0;
    const void *blob = previous.blob_at(0, n);
    const int count = feature_count_of_schema(static_cast<int>(previous.int_at(1)));
    auto copy = [&](int f) {
        std::memcpy(&e.x[static_cast<size_t>(f)], static_cast<const char *>(blob) + sizeof(float) * static_cast<size_t>(f),
                    sizeof(float));
    };
    if (blob && count > F_script_set_e && n == static_cast<int>(sizeof(float)) * count) {
        for (int f = F_script_bytes; f <= F_script_set_e; ++f) copy(f);
        // The findings, when the job's AdminComment did not carry them and that row has them.
        for (int f : {F_script_ignored_sbatch, F_script_missing_modules})
            if (f < count && std::isnan(e.x[static_cast<size_t>(f)])) copy(f);
    }
    previous.reset();
}

}  // namespace

void FeatureLogWriter::run() {
    name_this_thread("jfp-featurelog");
    lower_this_thread_priority(10);
    RateLimitedLog errors(300);
    std::unique_ptr<Db> db;
    std::unique_ptr<Stmt> insert, previous, exists;
    FeatureLogEntry e;
    OpenFileWatch watch;
    // Entries keep coming: look every kBusyWait. Entered when kWakeDepth / 4 are written between two
    // idle looks, and renewed by volume, not by any batch: kWakeDepth / 4 more within each kBusyHold. A
    // trickle (each 50 ms look finds a few) never enters it, and after a burst returns the writer to its
    // 50 ms timer, and the pool to its idle blocks, within one kBusyHold.
    auto busy_until = std::chrono::steady_clock::time_point{};
    uint64_t written_in_hold = 0;
    auto open = [&]() -> bool {
        if (db) return true;
        try {
            db = std::make_unique<Db>(private_db_file(path_, "feature log", "check feature_log in jfp.conf and that its directory is writable by SlurmUser"), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
            if (std::string note = set_journal_mode(*db); !note.empty()) log_info("feature log: " + note);
            db->exec(kFeatureLogSchema);
            add_script_fp_column(*db);
            // An update has no script at hand: its row keeps the submission's fingerprint.
            insert = std::make_unique<Stmt>(
                *db, "INSERT OR REPLACE INTO scored (token, scored_at, model_id, schema_version, uid, user, name, "
                     "p_fail, top_class, action, threshold, features, script_fp) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,"
                     "coalesce(?13, (SELECT script_fp FROM scored WHERE token = ?1)))");
            previous = std::make_unique<Stmt>(*db, "SELECT features, schema_version FROM scored WHERE token = ?1");
            exists = std::make_unique<Stmt>(*db, "SELECT 1 FROM scored WHERE token = ?1");
            watch.opened(path_);
            return true;
        } catch (const std::exception &ex) {
            insert.reset();
            previous.reset();
            exists.reset();
            db.reset();
            // The hint once: opening the file already says what to check.
            const std::string what = ex.what();
            errors.log(LogLevel::Error, "feature log: " + what + "; scored jobs are not logged until it can be written" +
                                            (what.find("(check ") != std::string::npos
                                                 ? ""
                                                 : " (check feature_log in jfp.conf and the directory's permissions)"));
            return false;
        }
    };
    while (true) {
        if (std::string what = db ? watch.changed() : std::string(); !what.empty()) {
            log_warning("feature log " + path_ + " " + what + " while slurmctld held it open: closed it, which frees "
                     "its space, and the next scored job starts a new one there");
            insert.reset();
            previous.reset();
            exists.reset();
            checkpoint_before_release(*db);
            db.reset();
            remove_orphan_wal(path_);
            watch.closed();
        }
        bool any = queue_.try_pop(e);
        if (!any) {
            if (stop_.load()) break;
            const bool busy = std::chrono::steady_clock::now() < busy_until;
            if (!busy) {
                written_in_hold = 0;
                heads_.trim();  // the burst is over: its extra script heads go back to malloc
            }
            std::unique_lock<std::mutex> lk(mu_);
            woken_.store(false);
            polling_.store(busy);  // before the look at pushed_ (seq_cst; see push)
            // Entries counted but not yet in view (a pusher between reserving its cell and publishing
            // it, others past it), or a burst whose wake came before this: a short look, not the idle
            // timer, and no spinning. Otherwise a push reaching the wake depth from here on sees woken_
            // and polling_ false and wakes the writer (unless it lands before the wait begins: the timer).
            const uint64_t done = written_.load() + failed_.load(), pushed = pushed_.load();
            const bool waiting = pushed > done && pushed - done >= wake_depth_;
            if (waiting) polling_.store(true);
            cv_.wait_for(lk, busy || waiting ? kBusyWait : idle_wait_, [&] { return attention_ || woken_.load(); });
            attention_ = false;
            continue;
        }
        if (!open()) {
            failed_.fetch_add(1);
            // Drain what is queued so the queue does not fill up behind a broken file.
            while (queue_.try_pop(e)) failed_.fetch_add(1);
            std::unique_lock<std::mutex> lk(mu_);
            cv_.wait_for(lk, std::chrono::seconds(5), [&] { return stop_.load(); });
            attention_ = false;
            continue;
        }
        uint64_t batch = 0, taken = 1, left_out = 0;  // written in this transaction; taken for it; not written (budget)
        struct Charge {
            uint32_t uid;
            int64_t day;
            uint64_t bytes;
        };
        std::vector<Charge> charges;  // given back if the batch is rolled back
        if (budget_) budget_->prepare(UserWriteBudget::day_of(e.scored_at));
        try {
            db->exec("BEGIN");
            do {
                const int64_t day = UserWriteBudget::day_of(e.scored_at);
                if (budget_ && !budget_->admit(UserWriteBudget::File::FeatureLog, e.uid, day)) {
                    e.script = DeferredScript();
                    ++left_out;
                    continue;  // to the loop's test: the next entry
                }
                if (e.script.pending()) {
                    fill_script_features(e.script.scan(), e.x);
                    e.script = DeferredScript();  // returns its bytes to the budget
                }
                // An update replaces its submission's row: the file grows only when there was none.
                bool replaces = false;
                if (e.update) {
                    exists->reset();
                    exists->bind(1, e.token.view());
                    replaces = exists->step();
                    exists->reset();
                }
                if (e.update && std::isnan(e.x[F_script_bytes])) keep_script_features(*previous, e);
                Stmt &s = *insert;
                s.bind(1, e.token.view()).bind(2, e.scored_at).bind(3, e.model_id ? std::string_view(*e.model_id) : std::string_view(""));
                s.bind(4, static_cast<int64_t>(kFeatureSchemaVersion)).bind(5, static_cast<int64_t>(e.uid));
                s.bind(6, std::string_view(e.user)).bind(7, std::string_view(e.name));
                s.bind(8, static_cast<double>(e.p_fail));
                if (e.top_class >= 0) s.bind(9, static_cast<int64_t>(e.top_class));
                else s.bind_null(9);
                s.bind(10, static_cast<int64_t>(e.action)).bind(11, static_cast<double>(e.threshold));
                s.bind_blob(12, e.x.data(), sizeof(float) * e.x.size());
                if (e.script_fingerprint != 0) s.bind(13, static_cast<int64_t>(e.script_fingerprint));
                else s.bind_null(13);
                s.run();
                ++batch;
                if (budget_ && !replaces) {
                    charges.push_back({e.uid, day, feature_log_row_bytes(e)});
                    if (budget_->charge(UserWriteBudget::File::FeatureLog, e.uid, day, charges.back().bytes))
                        log_user_spent("feature log", e.user, e.uid, budget_->limit());
                }
            } while (batch + left_out < 1000 && queue_.try_pop(e) && ++taken);
            db->exec("COMMIT");
            over_budget_.fetch_add(left_out);
            written_.fetch_add(batch);
            const auto now = std::chrono::steady_clock::now();
            written_in_hold += batch;
            if (written_in_hold >= kWakeDepth / 4) {
                busy_until = now + kBusyHold;
                written_in_hold = 0;
            }
        } catch (const std::exception &ex) {
            over_budget_.fetch_add(left_out);
            failed_.fetch_add(taken - left_out);  // rolled back: every entry it took, each counted once
            for (const Charge &c : charges) budget_->refund(UserWriteBudget::File::FeatureLog, c.uid, c.day, c.bytes);
            errors.log(LogLevel::Error, std::string("feature log ") + path_ + ": " + ex.what() +
                                            "; scored jobs are not logged until it can be written (free space or "
                                            "fix permissions there; jobs are not affected)");
            try {
                db->exec("ROLLBACK");
            } catch (...) {
            }
            insert.reset();
            previous.reset();
            exists.reset();
            db.reset();
        }
    }
}

uint64_t feature_log_row_bytes(const FeatureLogEntry &e) {
    return UserWriteBudget::row_bytes(2 * e.token.view().size() + (e.model_id ? e.model_id->size() : 0) + e.user.size() +
                                      e.name.size() + sizeof(float) * e.x.size());
}

std::unordered_map<uint32_t, uint64_t> feature_log_bytes_by_user_since(const std::string &path, int64_t since) {
    if (::access(path.c_str(), F_OK) != 0) return {};
    Db db(path, SQLITE_OPEN_READONLY);
    return bytes_by_user_since(db, since);
}

std::unordered_map<std::string, uint64_t> logged_script_fingerprints(const std::string &path) {
    std::unordered_map<std::string, uint64_t> out;
    if (::access(path.c_str(), F_OK) != 0) return out;
    Db db(path, SQLITE_OPEN_READONLY);
    Stmt has(db, "SELECT count(*) FROM pragma_table_info('scored') WHERE name = 'script_fp'");
    if (!has.step() || has.int_at(0) == 0) return out;
    Stmt s(db, "SELECT token, script_fp FROM scored WHERE script_fp IS NOT NULL");
    while (s.step()) out.emplace(s.text_at(0), static_cast<uint64_t>(s.int_at(1)));
    return out;
}

std::unordered_map<std::string, LoggedFeatures> read_feature_log(const std::string &path) {
    std::unordered_map<std::string, LoggedFeatures> out;
    Db db(path, SQLITE_OPEN_READONLY);
    Stmt has_fp(db, "SELECT count(*) FROM pragma_table_info('scored') WHERE name = 'script_fp'");
    const bool fp = has_fp.step() && has_fp.int_at(0) > 0;
    Stmt s(db, fp ? "SELECT token, schema_version, model_id, p_fail, features, scored_at, threshold, action, uid, script_fp FROM scored"
                  : "SELECT token, schema_version, model_id, p_fail, features, scored_at, threshold, action, uid, NULL FROM scored");
    while (s.step()) {
        LoggedFeatures f;
        f.schema_version = static_cast<int>(s.int_at(1));
        f.model_id = s.text_at(2);
        f.p_fail = static_cast<float>(s.real_at(3));
        f.scored_at = s.int_at(5);
        f.threshold = static_cast<float>(s.real_at(6));
        f.action = static_cast<uint8_t>(s.int_at(7));
        f.uid = static_cast<uint32_t>(s.int_at(8));
        f.script_fingerprint = s.is_null(9) ? 0 : static_cast<uint64_t>(s.int_at(9));
        int n = 0;
        const void *blob = s.blob_at(4, n);
        // A row of an earlier schema holds a prefix of ours: the features it lacks are unknown.
        const int count = feature_count_of_schema(f.schema_version);
        if (count == 0 || n != static_cast<int>(sizeof(float)) * count) continue;
        f.x.fill(std::numeric_limits<float>::quiet_NaN());
        std::memcpy(f.x.data(), blob, static_cast<size_t>(n));
        out.emplace(s.text_at(0), f);
    }
    return out;
}

namespace {

// Deletes the rows matching `where`, 5,000 per transaction, so that the plugin's writer (which waits up to
// 5 s for the file) never drops a row for it; r.removed counts what was committed.
void delete_in_batches(Db &db, const std::string &where, const std::function<void(Stmt &)> &bind, FeatureLogPrune &r) {
    Stmt del(db, ("DELETE FROM scored WHERE rowid IN (SELECT rowid FROM scored WHERE " + where + " LIMIT 5000)").c_str());
    while (true) {
        db.exec("BEGIN IMMEDIATE");
        try {
            bind(del);
            del.run();
            db.exec("COMMIT");
        } catch (...) {
            db.exec("ROLLBACK");
            throw;
        }
        uint64_t n = static_cast<uint64_t>(sqlite3_changes(db.get()));
        r.removed += n;
        if (n == 0) break;
    }
}

}  // namespace

void prune_feature_log(const std::string &path, int64_t before, bool apply, bool vacuum, FeatureLogPrune &r) {
    r = FeatureLogPrune();
    Db db(path, apply ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY);
    if (apply)
        if (std::string note = set_journal_mode(db); !note.empty()) log_info("feature log: " + note);
    auto count = [&](const char *where) {
        Stmt s(db, (std::string("SELECT count(*) FROM scored WHERE ") + where).c_str());
        s.bind(1, before);
        return s.step() ? static_cast<uint64_t>(s.int_at(0)) : 0;
    };
    if (!apply) {
        r.removed = count("scored_at < ?1");
        r.kept = count("scored_at >= ?1");
        return;
    }
    // Old rows have low rowids (rows are appended as jobs are scored): each batch's scan finds them first.
    delete_in_batches(db, "scored_at < ?1", [&](Stmt &del) { del.bind(1, before); }, r);
    r.kept = count("1 OR ?1");
    if (vacuum) db.exec("VACUUM");
}

void prune_feature_log_orphans(const std::string &path, const std::string &store_path, int64_t from, int64_t to,
                               bool apply, FeatureLogPrune &r) {
    r = FeatureLogPrune();
    Db db(path, apply ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY);
    if (apply)
        if (std::string note = set_journal_mode(db); !note.empty()) log_info("feature log: " + note);
    {
        Stmt attach(db, "ATTACH DATABASE ?1 AS store");
        attach.bind(1, std::string_view(store_path));
        attach.run();
    }
    const char *orphan =
        "scored_at BETWEEN ?1 AND ?2 AND token NOT IN (SELECT jfp_token FROM store.jobs WHERE jfp_token IS NOT NULL) "
        "AND token NOT IN (SELECT token FROM store.queue_tokens)";
    auto count = [&](const std::string &where) {
        Stmt s(db, ("SELECT count(*) FROM scored WHERE " + where).c_str());
        s.bind(1, from).bind(2, to);
        return s.step() ? static_cast<uint64_t>(s.int_at(0)) : 0;
    };
    if (!apply) {
        r.removed = count(orphan);
        r.kept = count("1 OR ?1 OR ?2");
        return;
    }
    delete_in_batches(db, orphan, [&](Stmt &del) { del.bind(1, from).bind(2, to); }, r);
    r.kept = count("1 OR ?1 OR ?2");
}

}  // namespace jfp
