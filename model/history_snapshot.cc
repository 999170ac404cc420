#include "history_snapshot.h"

namespace jfp {

namespace {
template <class M, class K>
const std::string *find_in(const M &m, const K &k) {
    auto it = m.find(k);
    return it == m.end() ? nullptr : &it->second;
}
}  // namespace

const std::string *HistorySnapshot::user_name(uint32_t uid) const { return find_in(uid_names, uid); }
const std::string *HistorySnapshot::account_of(const std::string &u) const { return find_in(last_account, u); }
const std::string *HistorySnapshot::qos_of(const std::string &u) const { return find_in(last_qos, u); }

HistorySnapshot load_history_snapshot(const HistoryStore &store) {
    HistorySnapshot s;
    store.for_each_ended_job([&](JobRecord &&j) {
        s.index.add(j);
        if (j.end > s.latest_end) s.latest_end = j.end;
    });
    // Submit order: the last write per user is their latest choice.
    store.for_each_job([&](JobRecord &&j) {
        ++s.jobs;
        if (j.uid >= 0) s.uid_names[static_cast<uint32_t>(j.uid)] = j.user;
        if (!j.account.empty()) s.last_account[j.user] = j.account;
        if (!j.qos.empty()) s.last_qos[j.user] = j.qos;
        if (!j.jfp_token.empty() && !j.ended()) {  // only jobs that can still be modified
            s.token_by_job[j.job_key] = j.jfp_token;
            if (!j.job_id.empty()) s.token_by_job[j.job_id] = j.jfp_token;
        }
    });
    for (const auto &[id, tok] : store.queue_tokens()) s.token_by_job[id] = tok;
    return s;
}

}  // namespace jfp
