// The feature log's writer: a sink of model/writer's BatchWriter, which owns the thread, when it looks,
// the file's lazy open, rotation and back-off. Here: what a row is and how a batch of them is written.
#include "model/scoring/feature_log.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "model/files/sqlite_util.h"
#include "model/util/log.h"

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

// Logs made before script fingerprints get the column in place.
void add_script_fp_column(Db &db) {
    Stmt c(db, "SELECT count(*) FROM pragma_table_info('scored') WHERE name = 'script_fp'");
    if (c.step() && c.int_at(0) > 0) return;
    db.exec("ALTER TABLE scored ADD COLUMN script_fp INTEGER");
}

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

struct FeatureLogWriter::OpenLog {
    Db db;
    Stmt insert, insert_new, previous, exists;
    explicit OpenLog(const std::string &path)
        : db(open_db(path)),
          // An update replaces its submission's row, and has no script at hand: its row keeps the
          // submission's fingerprint.
          insert(db, "INSERT OR REPLACE INTO scored (token, scored_at, model_id, schema_version, uid, user, name, "
                     "p_fail, top_class, action, threshold, features, script_fp) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,"
                     "coalesce(?13, (SELECT script_fp FROM scored WHERE token = ?1)))"),
          // A submission's token is new: a row already there is another job's (two controllers' tokens met,
          // model/jobs/token_issuer.h), and is kept rather than given this job's features.
          insert_new(db, "INSERT INTO scored (token, scored_at, model_id, schema_version, uid, user, name, p_fail, top_class, "
                         "action, threshold, features, script_fp) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13) "
                         "ON CONFLICT(token) DO NOTHING"),
          previous(db, "SELECT features, schema_version FROM scored WHERE token = ?1"),
          exists(db, "SELECT 1 FROM scored WHERE token = ?1") {}

    static Db open_db(const std::string &path) {
        Db db(private_db_file(path, "feature log", "check feature_log in jfp.conf and that its directory is writable by SlurmUser"),
              SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        if (std::string note = set_journal_mode(db); !note.empty()) log_info("feature log: " + note);
        db.exec(kFeatureLogSchema);
        add_script_fp_column(db);
        return db;
    }
};

FeatureLogWriter::FeatureLogWriter(std::string path, size_t capacity, size_t max_heads_in_use,
                                   std::chrono::milliseconds idle_wait, std::shared_ptr<UserWriteBudget> budget)
    : path_(std::move(path)), heads_(max_heads_in_use, kIdleHeads), queue_(capacity), budget_(std::move(budget)),
      writer_(path_, *this, BatchWriter::Options{"jfp-featurelog", queue_.capacity(), idle_wait, 300}) {
    writer_.start();
}

FeatureLogWriter::~FeatureLogWriter() { writer_.stop(); }

bool FeatureLogWriter::push(FeatureLogEntry &&e) {
    if (!queue_.try_push(std::move(e))) {
        dropped_.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    writer_.pushed();
    return true;
}

void FeatureLogWriter::flush() { flush_for(std::chrono::milliseconds::max()); }

bool FeatureLogWriter::flush_for(std::chrono::milliseconds limit) { return writer_.flush_for(limit); }
bool FeatureLogWriter::stop_within(std::chrono::milliseconds limit) { return writer_.stop_within(limit); }

bool FeatureLogWriter::take() { return queue_.try_pop(held_); }

void FeatureLogWriter::open() { open_ = std::make_unique<OpenLog>(path_); }

void FeatureLogWriter::close(bool rotated) noexcept {
    if (open_ && rotated) checkpoint_before_release(open_->db);
    open_.reset();
}

uint64_t FeatureLogWriter::fail_all() noexcept {
    uint64_t n = 1;
    held_.script = DeferredScript();
    while (queue_.try_pop(held_)) {
        held_.script = DeferredScript();
        ++n;
    }
    failed_.fetch_add(n);
    return n;
}

std::string FeatureLogWriter::open_failed(const std::string &what) const {
    // The hint once: opening the file already says what to check.
    return "feature log: " + what + "; scored jobs are not logged until it can be written" +
           (what.find("(check ") != std::string::npos ? ""
                                                      : " (check feature_log in jfp.conf and the directory's permissions)");
}

std::string FeatureLogWriter::write_failed(const std::string &what) const {
    return "feature log " + path_ + ": " + what +
           "; scored jobs are not logged until it can be written (free space or fix permissions there; jobs are not "
           "affected)";
}

std::string FeatureLogWriter::rotated(const std::string &what) const {
    return "feature log " + path_ + " " + what + " while slurmctld held it open: closed it, which frees its space, "
           "and the next scored job starts a new one there";
}

// The burst is over: its extra script heads go back to malloc.
void FeatureLogWriter::quiet() { heads_.trim(); }

// Up to 1000 rows in one transaction, starting with the held entry. A row over its user's day is left out
// (counted, not written); a batch rolled back fails every entry it took, each counted once, and gives
// back what it charged.
void FeatureLogWriter::write(Batch &b) {
    uint64_t left_out = 0, token_met = 0;
    FeatureLogEntry &e = held_;
    b.taken = 1;
    if (budget_) budget_->prepare(UserWriteBudget::day_of(e.scored_at));
    try {
        BatchCharges charges(budget_.get(), UserWriteBudget::File::FeatureLog, "feature log");
        WriteTransaction tx(open_->db, WriteTransaction::Lock::Deferred);
        do {
            const int64_t day = UserWriteBudget::day_of(e.scored_at);
            if (budget_ && !budget_->admit(UserWriteBudget::File::FeatureLog, e.uid, day)) {
                e.script = DeferredScript();
                ++left_out;
                continue;  // to the loop's test: the next entry
            }
            if (e.script.pending()) {
                fill_script_features(e.script.scan(), e.x);
                e.script = DeferredScript();  // returns its block to the pool
            }
            // An update replaces its submission's row: the file grows only when there was none.
            bool replaces = false;
            if (e.update) {
                Stmt &exists = open_->exists;
                exists.reset();
                exists.bind(1, e.token.view());
                replaces = exists.step();
                exists.reset();
            }
            if (e.update && std::isnan(e.x[F_script_bytes])) keep_script_features(open_->previous, e);
            Stmt &s = e.update ? open_->insert : open_->insert_new;
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
            if (!e.update && sqlite3_changes(open_->db.get()) == 0) {
                ++token_met;
                continue;  // to the loop's test: the next entry
            }
            ++b.written;
            if (budget_ && !replaces) charges.charge(e.uid, e.user, day, feature_log_row_bytes(e));
        } while (b.written + left_out + token_met < 1000 && queue_.try_pop(e) && ++b.taken);
        tx.commit();
        charges.committed();
        if (token_met)
            log_warning("feature log " + path_ + ": " + std::to_string(token_met) +
                        " scored job(s) not logged: their join token was already another job's (two controllers issued "
                        "it in the same second; the earlier row is kept). If this repeats, check that the controllers' "
                        "clocks agree");
    } catch (...) {
        e.script = DeferredScript();
        over_budget_.fetch_add(left_out);
        failed_.fetch_add(b.taken - left_out);
        b.written = 0;
        throw;
    }
    over_budget_.fetch_add(left_out);
    failed_.fetch_add(token_met);
    written_.fetch_add(b.written);
}

}  // namespace jfp
