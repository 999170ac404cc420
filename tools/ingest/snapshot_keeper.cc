#include "tools/ingest/snapshot_keeper.h"

#include <string>
#include <chrono>
#include <cstdio>
#include <exception>

#include "model/snapshot/snapshot_file.h"
#include "model/snapshot/snapshot_resume.h"
#include "model/util/text.h"

namespace jfp {

void SnapshotKeeper::give_up(const std::string &why) {
    if (stream_) stream_->give_up(why);
}

void SnapshotKeeper::before_ingest(const HistoryStore &store) {
    if (!stream_wanted_ || stream_) return;
    stream_wanted_ = false;  // one base: a later ingest continues the same stream
    try {
        if (auto base = stream_base(store, store_)) {
            stream_ = std::make_unique<SnapshotStream>(std::move(base->snap));
            stream_file_seq_ = base->file_seq;
        }
    } catch (const std::exception &) {
        // No stream: the refresh after the ingest reads the store and says what is wrong with it.
    }
}

// Inside the ingest's first batch (the write lock held): the store must still be where the stream is.
void SnapshotKeeper::ingest_began(HistoryStore &store) {
    if (!stream_ || stream_->given_up()) return;
    if (store.last_change() != stream_->last_seq() || store.prune_count() != stream_->prunes())
        return give_up("the store changed before the ingest began (another ingest or a prune)");
    feed_ = std::make_unique<ObservedRows>(*stream_);
    store.observe_ingest(feed_.get());
}

// Every write has been made (or rolled back) when these run: the stream has been told all of them after.
void SnapshotKeeper::end_feed() {
    if (!feed_) return;
    std::string why = feed_->finish();
    feed_.reset();
    if (!why.empty()) give_up("the rows could not be followed: " + why);
}

void SnapshotKeeper::ingest_failed() {
    end_feed();
    give_up("an ingest failed, and its last batch was rolled back");
}

void SnapshotKeeper::ingest_done(HistoryStore &store) {
    store.observe_ingest(nullptr);
    end_feed();
    if (store.others_committed_during_ingest()) give_up("another connection wrote to the store during the ingest");
}

void SnapshotKeeper::after_change(const char *who) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (done_once_ && now - last_ < interval_) return;
    try {
        auto t0 = now;
        SnapshotRefresh r = refresh_snapshot(store_, stream_.get(), stream_file_seq_);
        stream_.reset();
        last_ = std::chrono::steady_clock::now();
        done_once_ = true;
        if (quiet_ || !r.written) return;
        double s = std::chrono::duration<double>(last_ - t0).count();
        std::string how = r.streamed    ? r.first ? std::string("the rows as they were ingested")
                                                    : "the last one and " + std::to_string(r.applied) + " jobs as they were ingested"
                          : r.incremental ? "the last one and " + std::to_string(r.applied) + " changed jobs"
                          : r.first     ? std::string("the whole store")
                                        : "the whole store, as the last one could not be used: " + r.why_replayed;
        if (!r.why_not_streamed.empty()) how += " (not from the rows ingested: " + r.why_not_streamed + ")";
        std::printf("%s: history snapshot %s written from %s: %llu jobs, %.1f MiB, %.1f s\n", who,
                    snapshot_path_for(store_).c_str(), printable(how).c_str(), static_cast<unsigned long long>(r.jobs),
                    static_cast<double>(r.bytes) / (1 << 20), s);
    } catch (const std::exception &e) {
        stream_.reset();
        last_ = std::chrono::steady_clock::now();
        done_once_ = true;
        std::fprintf(stderr,
                     "%s: warning: the history snapshot %s was not written (%s); the store is complete; "
                     "slurmctld's next start uses the older snapshot and more changes, or replays the store (slower)\n",
                     who, snapshot_path_for(store_).c_str(), printable(e.what(), std::string::npos, true).c_str());
    }
}

}  // namespace jfp
