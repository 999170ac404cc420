#include "model/archive/script_archive_writer.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>

#include "model/util/log.h"

namespace jfp {

namespace {
int64_t now_s() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

char *ScriptArchiveEntry::allocate(size_t script_bytes, size_t env_bytes) {
    text.reset(new char[script_bytes + env_bytes]);
    script_len = script_bytes;
    env_len = env_bytes;
    return text.get();
}

void ScriptArchiveEntry::assign(std::string_view script, std::string_view env) {
    char *p = allocate(script.size(), env.size());
    if (!script.empty()) std::memcpy(p, script.data(), script.size());
    if (!env.empty()) std::memcpy(p + script.size(), env.data(), env.size());
}

ScriptArchiveWriter::ScriptArchiveWriter(std::string path, size_t max_entries, int64_t max_bytes,
                                         std::shared_ptr<UserWriteBudget> budget, int64_t log_interval_seconds)
    : path_(std::move(path)), max_bytes_(max_bytes), budget_(std::move(budget)),
      log_interval_(log_interval_seconds), queue_(max_entries), last_report_(now_s()),
      writer_(path_, *this,
              BatchWriter::Options{"jfp-archive", queue_.capacity(), BatchWriter::kIdleWait, log_interval_seconds}) {
    writer_.start();
}

ScriptArchiveWriter::~ScriptArchiveWriter() {
    writer_.stop();
    report_drops(true);
}

bool ScriptArchiveWriter::reserve(int64_t bytes) {
    if (bytes_.fetch_add(bytes, std::memory_order_relaxed) + bytes > max_bytes_) {
        bytes_.fetch_sub(bytes, std::memory_order_relaxed);
        return false;
    }
    return true;
}

void ScriptArchiveWriter::push(ScriptArchiveEntry &&e, int64_t bytes) {
    auto q = std::make_unique<Queued>(Queued{std::move(e), bytes});
    if (!queue_.try_push(std::move(q))) {
        bytes_.fetch_sub(bytes, std::memory_order_relaxed);
        dropped_.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    writer_.pushed();
}

void ScriptArchiveWriter::flush() { flush_for(std::chrono::milliseconds::max()); }

bool ScriptArchiveWriter::flush_for(std::chrono::milliseconds limit) { return writer_.flush_for(limit); }
bool ScriptArchiveWriter::stop_within(std::chrono::milliseconds limit) { return writer_.stop_within(limit); }

ScriptArchiveCounters ScriptArchiveWriter::counters() const {
    return {archived_.load(), new_scripts_.load(), dropped_.load(), failed_.load(), over_budget_.load()};
}

// One line per interval at most, however many submissions were turned away.
void ScriptArchiveWriter::report_drops(bool final) {
    uint64_t d = dropped_.load(), f = failed_.load(), o = over_budget_.load();
    if (d == dropped_reported_ && f == failed_reported_ && o == over_budget_reported_) return;
    int64_t now = now_s();
    if (!final && reported_once_ && now - last_report_ < log_interval_) return;
    if (o != over_budget_reported_)
        log_warning("script archive " + path_ + ": " + std::to_string(o - over_budget_reported_) +
                    " scripts not archived in the last " + std::to_string(now - last_report_) +
                    " s: each one's user had added " + std::to_string(budget_ ? budget_->limit() >> 20 : 0) +
                    " MiB to jfp's files that day (user_mb_per_day); jobs are not affected");
    over_budget_reported_ = o;
    if (d == dropped_reported_ && f == failed_reported_) {
        last_report_ = now;
        reported_once_ = true;
        return;
    }
    std::string msg = "script archive " + path_ + ": " + std::to_string((d - dropped_reported_) + (f - failed_reported_)) +
                      " scripts not archived in the last " + std::to_string(now - last_report_) + " s (";
    std::string budget = max_bytes_ >= (1 << 20) ? std::to_string(max_bytes_ >> 20) + " MiB" : std::to_string(max_bytes_) + " bytes";
    msg += std::to_string(d - dropped_reported_) + " over the queue's budget of " + budget + " (script_archive_queue_mb), " +
           std::to_string(f - failed_reported_) + " not written";
    msg += "); jobs are not affected";
    log_error(msg);
    dropped_reported_ = d;
    failed_reported_ = f;
    last_report_ = now;
    reported_once_ = true;
}

bool ScriptArchiveWriter::take() { return queue_.try_pop(held_); }

void ScriptArchiveWriter::open() { archive_ = std::make_unique<ScriptArchive>(path_, ScriptArchive::Access::ReadWrite); }

void ScriptArchiveWriter::close(bool rotated) noexcept {
    if (archive_ && rotated) archive_->checkpoint_before_release();
    archive_.reset();
}

void ScriptArchiveWriter::fail(std::unique_ptr<Queued> &q) noexcept {
    failed_.fetch_add(1);
    bytes_.fetch_sub(q->bytes, std::memory_order_relaxed);
    q.reset();
}

// The budget frees up behind a broken file.
uint64_t ScriptArchiveWriter::fail_all() noexcept {
    uint64_t n = 0;
    if (held_) {
        fail(held_);
        ++n;
    }
    while (queue_.try_pop(held_)) {
        fail(held_);
        ++n;
    }
    return n;
}

std::string ScriptArchiveWriter::open_failed(const std::string &what) const {
    return "script archive: " + what + "; scripts are not archived until it can be opened (jobs are not affected)";
}

std::string ScriptArchiveWriter::write_failed(const std::string &what) const {
    return "script archive " + path_ + ": " + what +
           "; scripts are not archived until it can be written (free space or fix permissions there; jobs are not "
           "affected)";
}

std::string ScriptArchiveWriter::rotated(const std::string &what) const {
    return "script archive " + path_ + " " + what + " while slurmctld held it open: closed it, which frees its "
           "space, and the next script starts a new one there";
}

// Up to 256 entries in one transaction, starting with the held one: all of it is archived, or all of it
// counts as failed (less what the user's spent day left out), and what it charged the budget is given back.
void ScriptArchiveWriter::write(Batch &b) {
    uint64_t fresh = 0, left_out = 0;  // left_out: in the batch, not written (the user's day is spent)
    uint64_t token_met = 0;            // in the batch, not written: another job's row has its token
    int64_t charged = 0;
    if (budget_) budget_->prepare(UserWriteBudget::day_of(held_->e.meta.submitted));
    try {
        BatchCharges charges(budget_.get(), UserWriteBudget::File::ScriptArchive, "script archive");
        archive_->begin();
        do {
            ScriptArchiveEntry &e = held_->e;
            const int64_t day = UserWriteBudget::day_of(e.meta.submitted);
            if (budget_ && !budget_->admit(UserWriteBudget::File::ScriptArchive, e.meta.uid, day)) {
                ++left_out;
            } else {
                const std::string_view env = e.env();
                uint64_t added = 0;
                const auto put = archive_->put(e.meta, e.script(), e.has_env ? &env : nullptr, &added);
                if (put == ScriptArchive::PutOutcome::NewScript) ++fresh;
                if (put == ScriptArchive::PutOutcome::TokenTaken) ++token_met;
                else charges.charge(e.meta.uid, e.meta.user, day, added);
            }
            ++b.taken;
            charged += held_->bytes;
            held_.reset();
        } while (b.taken < 256 && queue_.try_pop(held_));
        archive_->commit();
        charges.committed();
        if (token_met)
            log_warning("script archive " + path_ + ": " + std::to_string(token_met) +
                        " script(s) not archived: their join token was already another job's (two controllers issued it "
                        "in the same second; the earlier row is kept). If this repeats, check that the controllers' clocks "
                        "agree");
    } catch (...) {
        archive_->rollback();
        if (held_) {  // the entry being written when it failed
            ++b.taken;
            charged += held_->bytes;
            held_.reset();
        }
        over_budget_.fetch_add(left_out);
        failed_.fetch_add(b.taken - left_out);
        bytes_.fetch_sub(charged, std::memory_order_relaxed);
        throw;
    }
    b.written = b.taken - left_out - token_met;
    over_budget_.fetch_add(left_out);
    failed_.fetch_add(token_met);
    archived_.fetch_add(b.written);
    new_scripts_.fetch_add(fresh);
    bytes_.fetch_sub(charged, std::memory_order_relaxed);
}

}  // namespace jfp
