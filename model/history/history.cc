#include "model/history/history.h"

#include "model/history/name_identity.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace jfp {

namespace {
// Elapsed is whole seconds, cut down: a job that ran used up to a second more than it says.
double used_core_seconds(const JobRecord &j) {
    if (!known(j.elapsed_s) || !std::isfinite(j.elapsed_s) || j.elapsed_s < 0) return -1;
    const double cpus = known(j.req_cpus) && std::isfinite(j.req_cpus) && j.req_cpus >= 1 ? j.req_cpus : 1;
    return (j.elapsed_s + 1) * cpus;
}

// The closed runs' evidence with the open run folded in. A run of weight w (its failed jobs' share plus its
// completed jobs' weights, over its jobs) ages the older runs by 1 - (1 - kDecay) w: a cheap run barely does.
struct Folded {
    float w_fail, w_all, r_fail, r_all, streak;
};

Folded fold(const HistoryStats &s) {
    Folded f{s.w_fail, s.w_all, s.r_fail, s.r_all, s.w_streak};
    if (s.run_jobs == 0) return f;
    const float jobs = s.run_jobs, fails = s.run_fails;
    const float q = fails / jobs, ok = s.run_ok_weight / jobs, w = q + ok;
    const float age = 1 - (1 - HistoryStats::kDecay) * w;
    f.w_fail += q;
    f.w_all += w;
    f.r_fail = f.r_fail * age + q;
    f.r_all = f.r_all * age + w;
    if (2 * s.run_fails >= s.run_jobs)
        f.streak += 1;
    else
        f.streak *= 1 - s.run_ok_weight / (jobs - fails);
    return f;
}

}  // namespace

float HistoryStats::completed_weight(const JobRecord &j) const {
    const double used = used_core_seconds(j);
    if (used < 0) return 1;
    // A completion as costly as the yardstick (fail_used: the costliest recent failure) answers it in full, and one as costly as the square root
    // of 60 x its core-seconds does too: a day-long 16-core failure (1.4M core-seconds) needs 2.5 core-hours,
    // and a minute's sleep answers 1/150 of it. Against the failure's whole cost, later ordinary completions
    // counted too little (PR-AUC 0.010-0.015 lower on LANL-CM5 and CEA-Curie; docs/model.md); against a fixed
    // minute, an application whose failed and completed runs all take a second never recovered.
    const double f = fail_used;
    const double ref = std::min(f, std::sqrt(f * kFullUse));
    if (ref <= 0) return 1;
    return static_cast<float>(std::min(1.0, std::max<double>(kMinWeight, used / ref)));
}

HistoryStats::RunEvidence HistoryStats::runs() const {
    RunEvidence e;
    if (n_labeled == 0) {
        e.fail_rate = e.recent_fail_rate = std::numeric_limits<double>::quiet_NaN();
        return e;
    }
    const Folded f = fold(*this);
    e.fail_rate = f.w_all > 0 ? f.w_fail / f.w_all : 0;
    e.recent_fail_rate = f.r_all > 0 ? f.r_fail / f.r_all : 0;
    e.streak = f.streak;
    e.weight = f.w_all;
    return e;
}

void HistoryStats::add(const JobRecord &j, uint32_t key) {
    ++n;
    last = static_cast<uint8_t>(j.outcome);
    if (j.outcome != Outcome::Completed || completed_weight(j) >= 0.5f) last_evident = last;
    if (j.end > last_end) last_end = j.end;
    if (known(j.max_rss_mb) && j.max_rss_mb > max_rss_mb) max_rss_mb = static_cast<float>(j.max_rss_mb);
    if (j.outcome == Outcome::Cancelled) ++n_cancel;
    if (!is_labeled(j.outcome)) return;
    ++n_labeled;
    bool failed = is_failure(j.outcome);
    if (run_jobs == 0 || key == 0 || key != run_key || run_jobs == UINT16_MAX) {
        const Folded f = fold(*this);
        w_fail = f.w_fail, w_all = f.w_all, r_fail = f.r_fail, r_all = f.r_all, w_streak = f.streak;
        run_key = key;
        run_jobs = run_fails = 0;
        run_ok_weight = 0;
    }
    ++run_jobs;
    // The yardstick a completion is weighed against: each failure sets it to the larger of its own cost and
    // kYardstickKeep of the yardstick before it, so that one instant failure cannot reset it (with the latest
    // failure's cost alone, one instant failure and three instant completions laundered ten failed 16-core
    // hours); several cheap failures in a row do, as they should. 0.5, or fading with completions too, cost
    // CEA-Curie 0.010-0.018 PR-AUC; 0.1 holds the traces (docs/model.md).
    if (failed) {
        ++run_fails;
        const double used = used_core_seconds(j);
        fail_used = std::max(used < 0 ? 0.0f : static_cast<float>(used), fail_used * kYardstickKeep);
    } else {
        run_ok_weight += completed_weight(j);
    }
    recent = static_cast<uint16_t>(((recent << 1) | (failed ? 1u : 0u)) & ((1u << kRecent) - 1));
    if (recent_n < kRecent) ++recent_n;
    if (failed) {
        ++n_fail;
        ++streak;
        last_fail_end = j.end;
        if (j.outcome == Outcome::Timeout) {
            ++n_timeout;
            if (known(j.timelimit_min) && std::isfinite(j.timelimit_min))
                last_fail_timelimit_min = static_cast<float>(j.timelimit_min);
        } else if (j.outcome == Outcome::OutOfMemory) {
            ++n_oom;
            if (known(j.req_mem_mb)) last_oom_req_mem_mb = static_cast<float>(j.req_mem_mb);
        }
    } else {
        streak = 0;
        if (known(j.elapsed_s) && j.elapsed_s > max_ok_elapsed_s) max_ok_elapsed_s = static_cast<float>(j.elapsed_s);
        if (known(j.max_rss_mb) && j.max_rss_mb > max_ok_rss_mb) max_ok_rss_mb = static_cast<float>(j.max_rss_mb);
    }
}

bool HistoryStats::operator==(const HistoryStats &o) const {
    return n == o.n && n_labeled == o.n_labeled && n_fail == o.n_fail && n_timeout == o.n_timeout && n_oom == o.n_oom &&
           n_cancel == o.n_cancel && streak == o.streak && recent == o.recent && recent_n == o.recent_n &&
           last == o.last && last_evident == o.last_evident && last_end == o.last_end && last_fail_end == o.last_fail_end &&
           max_ok_elapsed_s == o.max_ok_elapsed_s && max_rss_mb == o.max_rss_mb && max_ok_rss_mb == o.max_ok_rss_mb &&
           last_fail_timelimit_min == o.last_fail_timelimit_min && last_oom_req_mem_mb == o.last_oom_req_mem_mb &&
           w_fail == o.w_fail && w_all == o.w_all && r_fail == o.r_fail && r_all == o.r_all && w_streak == o.w_streak &&
           fail_used == o.fail_used && run_key == o.run_key && run_jobs == o.run_jobs && run_fails == o.run_fails &&
           run_ok_weight == o.run_ok_weight;
}

double HistoryStats::recent_fail_rate() const {
    if (recent_n == 0) return std::numeric_limits<double>::quiet_NaN();
    return static_cast<double>(__builtin_popcount(recent)) / recent_n;
}

std::string_view name_stem(std::string_view name) {
    size_t e = name.size();
    while (e > 0 && ((name[e - 1] >= '0' && name[e - 1] <= '9') || name[e - 1] == '_' || name[e - 1] == '-' ||
                     name[e - 1] == '.'))
        --e;
    if (e == 0) return name;
    return name.substr(0, e);
}

std::string_view name_series(std::string_view name) {
    std::string_view stem = name_stem(name);
    if (stem.size() < name.size() && stem.size() >= 3 && (stem.back() == 'v' || stem.back() == 'V')) {
        char sep = stem[stem.size() - 2];
        if (sep == '_' || sep == '-' || sep == '.') return name_stem(stem.substr(0, stem.size() - 1));
    }
    return stem;
}

std::string_view first_partition(std::string_view p) {
    auto comma = p.find(',');
    return comma == std::string_view::npos ? p : p.substr(0, comma);
}

namespace {

enum Scope : uint8_t { kUserName = 1, kUserStem, kUser, kPartition, kAccount, kArrayRun, kUserRun, kUserScript, kPartitionUser, kAccountUser };

// FNV-1a over the bytes with a separator between parts, then a murmur3 finaliser for mixing.
struct KeyHash {
    uint64_t h = 1469598103934665603ull;
    void byte(unsigned char c) {
        h ^= c;
        h *= 1099511628211ull;
    }
    KeyHash &part(std::string_view s) {
        for (unsigned char c : s) byte(c);
        byte(0x1f);
        return *this;
    }
    explicit KeyHash(Scope s) { byte(static_cast<unsigned char>(s)); }
    uint64_t done() const {
        uint64_t k = h;
        k ^= k >> 33;
        k *= 0xff51afd7ed558ccdull;
        k ^= k >> 33;
        k *= 0xc4ceb9fe1a85ec53ull;
        k ^= k >> 33;
        return k;
    }
};

// A name is keyed by its identity (name_identity.h), not its bytes: a case, a blank or a look-alike letter
// does not make a first run.
uint64_t key_user_name(std::string_view u, const NameIdentity &n) { return KeyHash(kUserName).part(u).part(n.name).done(); }
uint64_t key_user_stem(std::string_view u, const NameIdentity &n) { return KeyHash(kUserStem).part(u).part(n.series).done(); }
uint64_t key_user(std::string_view u) { return KeyHash(kUser).part(u).done(); }
uint64_t key_partition(std::string_view p) { return KeyHash(kPartition).part(first_partition(p)).done(); }
uint64_t key_account(std::string_view a) { return KeyHash(kAccount).part(a).done(); }
uint64_t key_user_there(Scope s, std::string_view pool, std::string_view u) { return KeyHash(s).part(pool).part(u).done(); }
uint64_t key_user_script(std::string_view u, uint64_t fp) {
    KeyHash h(kUserScript);
    h.part(u);
    for (int i = 0; i < 8; ++i) h.byte(static_cast<unsigned char>(fp >> (8 * i)));
    return h.done();
}

// A run's key: the tasks of one array are one run (other jobs are each their own).
uint32_t run_key(uint8_t scope, std::string_view s) {
    return static_cast<uint32_t>(KeyHash(static_cast<Scope>(scope)).part(s).done()) | 1u;
}

}  // namespace

void PoolUsers::put(uint64_t user_key, float recent_rate) {
    int at = 0;
    while (at < n && user[at] != user_key) ++at;
    if (at == n && n < kUsers) ++n;
    if (at == kUsers) at = kUsers - 1;  // a full ring: the oldest leaves
    for (int i = at; i > 0; --i) user[i] = user[i - 1], rate[i] = rate[i - 1];
    user[0] = user_key;
    rate[0] = recent_rate;
}

float PoolUsers::sum() const {
    float s = 0;
    for (int i = 0; i < n; ++i) s += rate[i];
    return s;
}

bool PoolUsers::operator==(const PoolUsers &o) const {
    if (n != o.n) return false;
    for (int i = 0; i < n; ++i)
        if (user[i] != o.user[i] || rate[i] != o.rate[i]) return false;
    return true;
}

void HistoryIndex::add(const JobRecord &j) {
    if (!j.ended()) return;
    ++added_;
    const NameIdentity id = name_identity(j.name);
    const uint32_t array = j.array_job.empty() ? 0 : run_key(kArrayRun, j.array_job);
    const uint64_t user = key_user(j.user);
    map_[key_user_name(j.user, id)].add(j, array);
    map_[key_user_stem(j.user, id)].add(j, array);
    map_[user].add(j, array);
    if (!j.partition.empty())
        add_pooled(key_partition(j.partition), key_user_there(kPartitionUser, first_partition(j.partition), j.user), user, j, array);
    if (!j.account.empty()) add_pooled(key_account(j.account), key_user_there(kAccountUser, j.account, j.user), user, j, array);
    if (j.script_fingerprint != 0) map_[key_user_script(j.user, j.script_fingerprint)].add(j, array);
}

// A pooled key's run evidence is of its users, not of its jobs: w_fail / w_all is the mean over every user
// with labeled jobs there of their own failed share of runs, r_fail / r_all the mean over the latest
// PoolUsers::kUsers users of their own recent rate. Each user's own runs there are kept under their own key
// (user_there), folded as a user's keys are. One user can so move either rate by one user's share, never by
// the number of jobs they end (features read the key only from kMinPoolUsers users). Its job counts stay
// counts of jobs: they are what a message quotes ("3 of the last 10 ... jobs in partition 'p' failed").
void HistoryIndex::add_pooled(uint64_t pool_key, uint64_t user_there_key, uint64_t user_key, const JobRecord &j, uint32_t run) {
    HistoryStats &mine = map_[user_there_key];
    const bool had = mine.n_labeled > 0;
    const double before = had ? mine.runs().fail_rate : 0;
    mine.add(j, run);
    HistoryStats &pool = map_[pool_key];
    pool.add(j, 0);
    if (!is_labeled(j.outcome)) return;
    // No run of the pool's own is ever open: runs() reads the users' evidence below as it stands.
    pool.run_jobs = pool.run_fails = 0;
    pool.run_ok_weight = pool.w_streak = 0;
    const HistoryStats::RunEvidence now = mine.runs();
    if (!had) pool.w_all += 1;
    pool.w_fail = std::clamp(static_cast<float>(pool.w_fail + (now.fail_rate - before)), 0.0f, pool.w_all);
    PoolUsers &users = pools_[pool_key];
    users.put(user_key, static_cast<float>(now.recent_fail_rate));
    pool.r_fail = users.sum();
    pool.r_all = users.n;
}

HistoryView HistoryIndex::lookup(const JobRequest &r) const { return lookup(r, name_identity(r.name)); }

bool HistoryIndex::knows_partition(std::string_view partition) const {
    return !partition.empty() && map_.locate(key_partition(partition)) != StatsTable::kNone;
}

HistoryView HistoryIndex::lookup(const JobRequest &r, const NameIdentity &id) const {
    // All keys first, then their slots and values fetched together (see stats_table.h).
    constexpr size_t kKeys = 6;
    uint64_t key[kKeys] = {key_user_name(r.user, id), key_user_stem(r.user, id), key_user(r.user), 0, 0, 0};
    bool wanted[kKeys] = {true, true, true, !r.partition.empty(), !r.account.empty(), r.script_fingerprint != 0};
    if (wanted[3]) key[3] = key_partition(r.partition);
    if (wanted[4]) key[4] = key_account(r.account);
    if (wanted[5]) key[5] = key_user_script(r.user, r.script_fingerprint);
    for (size_t i = 0; i < kKeys; ++i)
        if (wanted[i]) map_.prefetch_slot(key[i]);
    uint32_t at[kKeys];
    for (size_t i = 0; i < kKeys; ++i) {
        at[i] = wanted[i] ? map_.locate(key[i]) : StatsTable::kNone;
        map_.prefetch_value(at[i]);
    }
    auto stats = [&](size_t i) { return at[i] == StatsTable::kNone ? nullptr : &map_.value(at[i]); };
    HistoryView v;
    v.user_name = stats(0);
    v.user_stem = stats(1);
    v.user = stats(2);
    v.partition = stats(3);
    v.account = stats(4);
    // "A first run" means no history under the name, its series or its script. The script's own runs are
    // the closest evidence there is, whatever they were called: a renamed copy of a failing script, or the
    // failing script under a name whose runs (cheap or not) were of another script, keeps its history.
    if (const HistoryStats *script = stats(5); script && script->n_labeled > 0) {
        // The usual case, one script always run under one name: the same runs, said by the name.
        const HistoryStats *un = v.user_name;
        const bool same_runs = un && un->n == script->n && un->n_fail == script->n_fail && un->last_end == script->last_end;
        if (!same_runs) {
            v.user_name = script;
            v.name_from_script = true;
        }
    }
    v.loaded = true;
    return v;
}

}  // namespace jfp
