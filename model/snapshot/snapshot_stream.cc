#include "model/snapshot/snapshot_stream.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace jfp {

SnapshotStream::SnapshotStream(HistorySnapshot base, size_t window, size_t max_open)
    : snap_(std::move(base)),
      from_(snap_.seq),
      window_(std::max<size_t>(window, 1)),
      max_open_(max_open),
      last_seq_(snap_.seq),
      applied_to_(snap_.latest_end, std::numeric_limits<int64_t>::min()) {
    if (from_ < 0) why_not_ = "the store's schema does not number its changes";
}

void SnapshotStream::give_up(std::string why) {
    if (why_not_.empty()) why_not_ = std::move(why);
    ended_.clear();
    ended_row_.clear();
    open_.clear();
}

SnapshotStream::Held *SnapshotStream::held(int64_t rowid) {
    if (auto k = ended_row_.find(rowid); k != ended_row_.end()) return &ended_.find(k->second)->second;
    if (auto o = open_.find(rowid); o != open_.end()) return &o->second;
    return nullptr;
}

void SnapshotStream::step_written(const StepInfo &step, const WrittenRow &w) {
    if (given_up()) return;
    last_seq_ = std::max(last_seq_, w.seqs.seq);
    if (w.inserted) return;  // a step before its job: the job's own write will carry it
    // sacct lists a job's steps right after it: the step's job is the job written last, still held.
    Held *h = held(last_rowid_);
    if (!h || h->job.job_key != step.job_key || h->job.cluster != step.cluster)
        return give_up("a step of job " + step.job_key + " came apart from its job, after the job was applied or from an earlier ingest");
    fold_step_write(h->job, h->step_oom, step);
    h->seqs.seq = w.seqs.seq;  // a step changes neither when the row became a job nor when it ended
}

void SnapshotStream::job_written(JobRecord &&row, const WrittenRow &w) {
    if (given_up()) return;
    last_seq_ = std::max(last_seq_, w.seqs.seq);
    last_rowid_ = w.rowid;
    const bool ended = row.ended();
    const EndOrder order(row.end, w.seqs.end_seq);
    bool was_held = false;
    if (auto k = ended_row_.find(w.rowid); k != ended_row_.end()) {
        auto it = ended_.find(k->second);
        if (ended && k->second == order) {  // rewritten in place: its place in the replay stays
            it->second = Held{std::move(row), w.seqs, w.step_oom, w.rowid};
            std::string().swap(it->second.job.submit_line);
            return;
        }
        ended_.erase(it);
        ended_row_.erase(k);
        was_held = true;
    } else if (auto o = open_.find(w.rowid); o != open_.end()) {
        open_.erase(o);
        was_held = true;
    }
    // Ended before this write and not held: applied already, or ended in the base. Either way its earlier
    // state is in the index, which only a replay can take back out.
    if (!was_held && w.seqs.end_seq != 0 && w.seqs.end_seq < w.seqs.seq)
        return give_up("job " + row.job_key + " had ended before and changed again (re-ingested with changes)");
    if (ended && (w.seqs.end_seq == 0 || order < applied_to_))
        return give_up("job " + row.job_key + " ended before jobs already applied (rows far out of end order, or a late export)");
    Held h{std::move(row), w.seqs, w.step_oom, w.rowid};
    std::string().swap(h.job.submit_line);  // no history reads it
    if (!ended) {
        if (open_.size() >= max_open_)
            return give_up("more than " + std::to_string(max_open_) + " jobs of the ingest had not ended (each is held to its end)");
        open_.emplace(w.rowid, std::move(h));
        return;
    }
    ended_row_.emplace(w.rowid, order);
    ended_.emplace(order, std::move(h));
    if (ended_.size() > window_) apply_oldest();
}

void SnapshotStream::apply(Held &h) {
    fold_step_verdicts(h.job, h.step_oom);
    apply_changed_job(snap_, h.job, h.seqs, from_);
    ++applied_;
}

void SnapshotStream::apply_oldest() {
    auto it = ended_.begin();
    apply(it->second);
    applied_to_ = it->first;
    ended_row_.erase(it->second.rowid);
    ended_.erase(it);
}

std::optional<HistorySnapshot> SnapshotStream::finish(const HistoryStore &store) {
    if (given_up()) return std::nullopt;
    if (!store.tracks_changes()) {
        give_up("the store's schema does not number its changes");
        return std::nullopt;
    }
    if (store.prune_count() != snap_.prunes) {
        give_up("jobs were pruned from the store during the ingest");
        return std::nullopt;
    }
    if (int64_t last = store.last_change(); last != last_seq_) {
        give_up("the store changed beyond the rows this ingest wrote (another ingest since?)");
        return std::nullopt;
    }
    while (!ended_.empty()) apply_oldest();
    // Rows not ended touch no statistic: their order only decides which of two jobs sharing an id keeps
    // a token. Applied in the order they were written.
    std::vector<Held *> open;
    open.reserve(open_.size());
    for (auto &[k, h] : open_) open.push_back(&h);
    std::sort(open.begin(), open.end(), [](const Held *a, const Held *b) { return a->seqs.seq < b->seqs.seq; });
    for (Held *h : open) apply(*h);
    open_.clear();
    snap_.queue_token_by_job = read_queue_tokens(store);
    snap_.seq = last_seq_;
    HistorySnapshot out = std::move(snap_);
    give_up("finished");
    return out;
}

}  // namespace jfp
