#include "model/store/job_load.h"

#include <exception>
#include <thread>
#include <utility>
#include <vector>

#include "model/store/end_order_replay.h"
#include "model/store/store_schema.h"

namespace jfp {

namespace {

// Room for every job row's key at once: the vector is most of the load's memory, and doubling it
// would hold up to three times that while it copies.
void reserve_keys(const Db &db, std::vector<EndKey> &keys) {
    Stmt c(db, "SELECT count(*) FROM jobs");  // an index's count: milliseconds
    if (c.step()) keys.reserve(static_cast<size_t>(c.int_at(0)));
}

// Every job row in rowid order; with keys, the ended rows' (end_time, end_seq) too.
void scan_submissions(const Db &db, const std::function<void(const HistoryStore::Submission &)> &fn,
                      std::vector<EndKey> *keys) {
    Stmt s(db, (std::string("SELECT cluster, job_key, user, account, qos, uid, submit") +
                (keys ? ", " + ended_sql() + ", end_time, end_seq" : std::string()) +
                " FROM jobs WHERE user IS NOT NULL ORDER BY rowid").c_str());
    if (keys) reserve_keys(db, *keys);
    HistoryStore::Submission r;
    while (s.step()) {
        r.cluster = s.view_at(0);
        r.job_key = s.view_at(1);
        r.user = s.view_at(2);
        r.account = s.view_at(3);
        r.qos = s.view_at(4);
        r.uid = s.is_null(5) ? -1 : s.int_at(5);
        r.submit = s.int_at(6);
        fn(r);
        if (keys && s.int_at(7) != 0) keys->push_back(EndKey{s.int_at(8), s.int_at(9)});
    }
}

std::vector<EndKey> scan_end_keys(const Db &db) {
    std::vector<EndKey> keys;
    reserve_keys(db, keys);
    Stmt s(db, ("SELECT end_time, end_seq FROM jobs WHERE user IS NOT NULL AND " + ended_sql() + " ORDER BY rowid").c_str());
    while (s.step()) keys.push_back(EndKey{s.int_at(0), s.int_at(1)});
    return keys;
}

// Which state of the job rows a connection sees: equal on two connections, equal rows.
std::pair<int64_t, int64_t> jobs_state(const Db &db) {
    Stmt s(db, "SELECT coalesce(max(seq), 0) FROM jobs");
    const int64_t seq = s.step() ? s.int_at(0) : 0;
    if (!has_prunes_table(db)) return {seq, 0};
    Stmt p(db, "SELECT count(*) FROM prunes");
    return {seq, p.step() ? p.int_at(0) : 0};
}

void replay_ended(const JobLoad &load, std::vector<EndKey> keys, const std::function<void(const JobRecord &)> &ended) {
    if (load.keyed) {
        ReplayOrder order = replay_order(std::move(keys));
        if (order.window <= load.options.max_window) {
            replay_ended_rows(load.db, load.script_fp, order, ended);
            return;
        }
    }
    JobCursor sorted(load.db, ended_for_index_sql(load.keyed, load.script_fp));
    JobRecord j;
    while (sorted.next(j)) ended(j);
}

// The submissions on a second connection, while the caller's replays the ended jobs.
class SideScan {
public:
    SideScan(const Db &db, const std::function<void(const HistoryStore::Submission &)> &fn) : state_(jobs_state(db)) {
        thread_ = std::thread([this, path = db.path(), &fn] {
            try {
                Db other(path, SQLITE_OPEN_READONLY);
                other.exec("BEGIN");
                if (jobs_state(other) != state_) return;  // a commit came between: the caller's connection reads them
                started_ = true;
                scan_submissions(other, fn, nullptr);
                other.exec("COMMIT");
            } catch (...) {
                failed_ = std::current_exception();
            }
        });
    }
    ~SideScan() {
        if (thread_.joinable()) thread_.join();
    }
    SideScan(const SideScan &) = delete;
    SideScan &operator=(const SideScan &) = delete;
    // After join: whether the submissions were read (rethrows a failure once the scan had begun; a
    // second connection that could not be opened only leaves them to the caller).
    bool done() {
        thread_.join();
        if (failed_ && started_) std::rethrow_exception(failed_);
        return started_ && !failed_;
    }

private:
    std::pair<int64_t, int64_t> state_;
    bool started_ = false;
    std::exception_ptr failed_;
    std::thread thread_;
};

}  // namespace

void load_jobs(const JobLoad &load, const std::function<void(const HistoryStore::Submission &)> &submission,
               const std::function<void(const JobRecord &)> &ended) {
    if (load.options.second_thread && load.keyed) {
        SideScan side(load.db, submission);
        replay_ended(load, scan_end_keys(load.db), ended);
        if (!side.done()) scan_submissions(load.db, submission, nullptr);
        return;
    }
    std::vector<EndKey> keys;
    scan_submissions(load.db, submission, load.keyed ? &keys : nullptr);
    replay_ended(load, std::move(keys), ended);
}

}  // namespace jfp
