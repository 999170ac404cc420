#include "model/snapshot/history_snapshot.h"

#include <utility>
#include <vector>

namespace jfp {

namespace {
template <class M, class K>
const std::string *find_in(const M &m, const K &k) {
    auto it = m.find(k);
    return it == m.end() ? nullptr : &it->second;
}

// The latest non-empty choice by submit order (ties by job), as a replay in submit order sees it; a
// later change to the winning job itself replaces its value. The job's key is built only on a tie or a win.
void choose(HistorySnapshot::Latest &cur, std::string_view value, int64_t submit, std::string_view cluster,
            std::string_view job_key) {
    if (value.empty()) return;
    if (!cur.value.empty() && submit < cur.submit) return;
    std::string job;
    job.reserve(cluster.size() + 1 + job_key.size());
    job.append(cluster).append(1, '\x1f').append(job_key);
    if (!cur.value.empty() && submit == cur.submit && job < cur.job) return;
    cur.value.assign(value);
    cur.submit = submit;
    cur.job = std::move(job);
}

// Who a uid is, the user's latest account and QOS.
void note_submission(HistorySnapshot &s, const HistoryStore::Submission &j) {
    if (j.uid >= 0) {
        auto &name = s.uid_names[static_cast<uint32_t>(j.uid)];
        if (name != j.user) name.assign(j.user);
    } else if (!j.user.empty()) {
        s.users_without_uid.emplace(j.user);
    }
    if (j.account.empty() && j.qos.empty()) return;
    auto it = s.last_account.find(std::string(j.user));  // one allocation per row with an account
    if (!j.account.empty()) {
        if (it == s.last_account.end()) it = s.last_account.emplace(std::string(j.user), HistorySnapshot::Latest()).first;
        choose(it->second, j.account, j.submit, j.cluster, j.job_key);
    }
    if (!j.qos.empty()) choose(s.last_qos[std::string(j.user)], j.qos, j.submit, j.cluster, j.job_key);
}

// The tokens of jobs that can still be modified: set while a job is not ended, dropped when it ends.
void note_token(HistorySnapshot &s, const JobRecord &j) {
    if (j.jfp_token.empty()) return;
    if (!j.ended()) {
        s.token_by_job[j.job_key] = j.jfp_token;
        if (!j.job_id.empty()) s.token_by_job[j.job_id] = j.jfp_token;
        return;
    }
    for (const std::string *id : {&j.job_key, &j.job_id}) {
        auto it = s.token_by_job.find(*id);
        if (it != s.token_by_job.end() && it->second == j.jfp_token) s.token_by_job.erase(it);
    }
}

void note_job(HistorySnapshot &s, const JobRecord &j) {
    HistoryStore::Submission sub;
    sub.cluster = j.cluster;
    sub.job_key = j.job_key;
    sub.user = j.user;
    sub.account = j.account;
    sub.qos = j.qos;
    sub.uid = j.uid;
    sub.submit = j.submit;
    note_submission(s, sub);
    note_token(s, j);
}

}  // namespace

std::unordered_map<std::string, std::string> read_queue_tokens(const HistoryStore &store) {
    std::unordered_map<std::string, std::string> q;
    for (auto &[id, tok] : store.queue_tokens()) q[std::move(id)] = std::move(tok);
    return q;
}

void apply_changed_job(HistorySnapshot &snap, const JobRecord &job, const JobSeqs &seqs, int64_t from) {
    if (seqs.job_seq > from) ++snap.jobs;
    if (job.ended() && seqs.end_seq > from) {
        snap.index.add(job);
        if (job.end > snap.latest_end) snap.latest_end = job.end;
    }
    note_job(snap, job);
}

const std::string *HistorySnapshot::user_name(uint32_t uid) const { return find_in(uid_names, uid); }

const std::string *HistorySnapshot::account_of(const std::string &u) const {
    auto it = last_account.find(u);
    return it == last_account.end() ? nullptr : &it->second.value;
}

const std::string *HistorySnapshot::qos_of(const std::string &u) const {
    auto it = last_qos.find(u);
    return it == last_qos.end() ? nullptr : &it->second.value;
}

const std::string *HistorySnapshot::token_of(const std::string &job_id) const {
    if (const std::string *t = find_in(queue_token_by_job, job_id)) return t;
    return find_in(token_by_job, job_id);
}

HistorySnapshot load_history_snapshot(const HistoryStore &store) {
    HistorySnapshot s;
    HistoryStore::ReadTransaction tx(store);  // one view: a commit during the load is applied next time
    s.seq = store.tracks_changes() ? store.last_change() : -1;
    s.prunes = store.prune_count();
    auto ended = store.ended_jobs_for_index();
    JobRecord j;
    while (ended.next(j)) {
        s.index.add(j);
        if (j.end > s.latest_end) s.latest_end = j.end;
    }
    store.for_each_submission([&](const HistoryStore::Submission &sub) {
        ++s.jobs;
        note_submission(s, sub);
    });
    auto tokened = store.unfinished_tokened_jobs();
    while (tokened.next(j)) note_token(s, j);
    s.queue_token_by_job = read_queue_tokens(store);
    return s;
}

SnapshotUpdate update_history_snapshot(HistorySnapshot &snap, const HistoryStore &store,
                                       const std::function<void(const std::function<void()> &)> &apply, size_t chunk) {
    SnapshotUpdate u;
    if (snap.seq < 0 || !store.tracks_changes()) {
        u.full_load_reason = "the store's schema does not number its changes (any jfp ingest into it upgrades it)";
        return u;
    }
    HistoryStore::ReadTransaction tx(store);
    const int64_t from = snap.seq;
    const int64_t last = store.last_change();
    if (int64_t p = store.prune_count(); p != snap.prunes) {
        u.full_load_reason = "jobs were pruned from it (jfp prune store)";
        return u;
    }
    if (last < from) {
        u.full_load_reason = "the store's change numbers went back (was it restored from a backup?)";
        return u;
    }
    auto c = store.count_changes(from, snap.latest_end);
    if (c.updated_after_end) {
        u.full_load_reason = std::to_string(c.updated_after_end) + " job(s) already loaded as ended were re-ingested with changes";
        return u;
    }
    if (c.ended_late) {
        u.full_load_reason = std::to_string(c.ended_late) + " job(s) ended before the latest job already loaded (a late or out-of-order export)";
        return u;
    }
    auto queue = read_queue_tokens(store);

    // Rows come in replay order (not ended first, then by end): each chunk extends the history in
    // end order, so between chunks readers see the history as of some end time.
    auto cursor = store.changed_since(from);
    std::vector<std::pair<JobRecord, JobSeqs>> rows;
    rows.reserve(chunk);
    bool more = true;
    while (more) {
        rows.clear();
        JobRecord j;
        JobSeqs q;
        while (rows.size() < chunk && (more = cursor.next(j, q))) rows.emplace_back(std::move(j), q);
        if (rows.empty()) break;
        // A bigger index is built here, beside the readers; under the lock it is only swapped in.
        if (auto room = snap.index.rehashed_for_jobs(rows.size())) apply([&] { snap.index.adopt(std::move(room)); });
        apply([&] {
            for (auto &[job, seqs] : rows) apply_changed_job(snap, job, seqs, from);
        });
        u.applied += rows.size();
    }
    if (queue != snap.queue_token_by_job) u.queue_tokens = queue.size();
    apply([&] {
        snap.queue_token_by_job = std::move(queue);
        snap.seq = last;
    });
    return u;
}

bool same_history(const HistorySnapshot &a, const HistorySnapshot &b, std::string *why) {
    auto differ = [&](const char *what) {
        if (why) *why = what;
        return false;
    };
    if (!(a.index == b.index)) return differ("index");
    if (a.jobs != b.jobs) return differ("jobs");
    if (a.latest_end != b.latest_end) return differ("latest_end");
    if (a.uid_names != b.uid_names) return differ("uid_names");
    if (a.users_without_uid != b.users_without_uid) return differ("users_without_uid");
    auto same_latest = [](const auto &x, const auto &y) {
        if (x.size() != y.size()) return false;
        for (const auto &[k, v] : x) {
            auto it = y.find(k);
            if (it == y.end() || it->second.value != v.value || it->second.submit != v.submit || it->second.job != v.job)
                return false;
        }
        return true;
    };
    if (!same_latest(a.last_account, b.last_account)) return differ("last_account");
    if (!same_latest(a.last_qos, b.last_qos)) return differ("last_qos");
    if (a.token_by_job != b.token_by_job) return differ("token_by_job");
    if (a.queue_token_by_job != b.queue_token_by_job) return differ("queue_token_by_job");
    return true;
}

}  // namespace jfp
