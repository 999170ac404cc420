// What one user's requests may add, in a day, to the files the plugin writes for them: the feature log's
// rows and the script archive's rows and contents. Every byte a writer adds is charged to the submitter;
// past the limit nothing more of theirs is written that day (their jobs are judged as before), and each
// request left out is counted per file, which jfp_user_budget_refused_total exports for an alert.
//
// A byte here is what a row takes in the file (row_bytes): its values and the copies its indexes keep, over
// the 3/4 a B-tree's pages hold when keys come in random order (hashes do, and v0.4's tokens; tokens now
// ascend, so this errs high), plus kRowOverhead for SQLite's cell header and key. test_user_write_budget.cc
// and write_budget.sh hold the files' real growth to it. Each file can say what a user added to it since a
// time (a Source); before the first admission of a day both sources are read, so a restart, a reload or a
// new writer gives no budget back, and neither writer admits before both files are counted. Days are the
// submissions' own (naive local seconds / 86400); an entry of an earlier day, late in a queue, is charged
// to the day in progress.
//
// Shared by the two writer threads; never touched on the submit path.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/util/time_util.h"

namespace jfp {

class UserWriteBudget {
public:
    enum class File : uint8_t { FeatureLog = 0, ScriptArchive = 1 };
    static constexpr uint64_t kRowOverhead = 64;
    // What a row whose values and index copies are `values` bytes takes; row_bytes_sql is the same in SQL
    // (integer arithmetic, row by row), for what a file says a user added.
    static uint64_t row_bytes(uint64_t values) { return values * 4 / 3 + kRowOverhead; }
    static std::string row_bytes_sql(const std::string &values) {
        return "((" + values + ") * 4 / 3 + " + std::to_string(kRowOverhead) + ")";
    }

    // Per uid, what a file holds of the rows written since a time (naive local seconds); throws when it
    // cannot be read (then counted as nothing, and read again at the next day).
    using Source = std::function<std::unordered_map<uint32_t, uint64_t>(int64_t since)>;

    explicit UserWriteBudget(int64_t bytes_per_day) : limit_(static_cast<uint64_t>(bytes_per_day)) {}
    // The file a writer writes (a new path: read it again before the next admission).
    void set_source(File file, Source source);
    void set_limit(int64_t bytes_per_day);
    int64_t limit() const;

    // Whether uid may still write on `day`; false counts one request left out of `file`.
    bool admit(File file, uint32_t uid, int64_t day);
    // Charges what a write added. true when this charge spent the user's day (once a user and day).
    bool charge(File file, uint32_t uid, int64_t day, uint64_t bytes);
    // Gives back a charge whose transaction was rolled back (nothing of it is in the file).
    void refund(File file, uint32_t uid, int64_t day, uint64_t bytes);
    // Reads the files for `day` if not read yet: a writer calls it before it begins a transaction, so that its
    // own file is never read while it holds the file's lock.
    void prepare(int64_t day) { read_sources(day); }
    // What `file` already holds of `day` per uid (read from the file when it is opened). Memory keeps the
    // larger: a file rotated away does not give back what was written into it.
    void seed(File file, int64_t day, const std::unordered_map<uint32_t, uint64_t> &spent);

    // Requests of over-budget users left out of `file`, since the start.
    uint64_t refused(File file) const { return refused_[static_cast<int>(file)].load(std::memory_order_relaxed); }
    // Users whose day is spent (today's, by the clock: 0 after midnight however quiet the cluster).
    size_t users_over() const { return users_over_on(day_of(naive_local_now())); }
    size_t users_over_on(int64_t today) const;
    // What uid has spent of the day in progress.
    uint64_t spent(uint32_t uid) const;

    static int64_t day_of(int64_t naive_seconds) { return naive_seconds >= 0 ? naive_seconds / 86400 : (naive_seconds - 86399) / 86400; }

private:
    struct Spent {
        uint64_t part[2] = {0, 0};
        bool over = false;
        uint64_t total() const { return part[0] + part[1]; }
    };
    void roll(int64_t day);  // under mu_
    void read_sources(int64_t day);
    std::mutex seed_mu_;  // held while the sources are read: a writer waits for both files to be counted
    mutable std::mutex mu_;
    Source sources_[2];
    int64_t read_day_[2] = {INT64_MIN, INT64_MIN};  // the day each source was last read for
    uint64_t limit_;
    int64_t day_ = INT64_MIN;
    size_t over_ = 0;
    std::unordered_map<uint32_t, Spent> spent_;
    std::atomic<uint64_t> refused_[2] = {0, 0};
};

// The one line a user's spent day gets (from the writer whose charge spent it).
void log_user_spent(const char *file, const std::string &user, uint32_t uid, int64_t limit);

// What one write transaction charged, given back at destruction unless the transaction committed: a batch
// rolled back leaves nothing of itself in the file, so its user's day must not count it.
class BatchCharges {
public:
    // budget nullptr: no budget, nothing charged.
    BatchCharges(UserWriteBudget *budget, UserWriteBudget::File file, const char *file_name)
        : budget_(budget), file_(file), file_name_(file_name) {}
    ~BatchCharges();
    BatchCharges(const BatchCharges &) = delete;
    BatchCharges &operator=(const BatchCharges &) = delete;

    // UserWriteBudget::charge, remembered; the charge that spends the user's day logs it (log_user_spent).
    void charge(uint32_t uid, const std::string &user, int64_t day, uint64_t bytes);
    // The transaction committed: the charges stand.
    void committed() { charges_.clear(); }

private:
    struct Charge {
        uint32_t uid;
        int64_t day;
        uint64_t bytes;
    };
    UserWriteBudget *budget_;
    UserWriteBudget::File file_;
    const char *file_name_;
    std::vector<Charge> charges_;
};

}  // namespace jfp
