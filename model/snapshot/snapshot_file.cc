#include "model/snapshot/snapshot_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "model/files/atomic_file.h"
#include "model/files/file_check.h"
#include "jfp_config.h"

namespace jfp {

namespace {

constexpr char kMagic[8] = {'J', 'F', 'P', 'H', 'S', 'N', 'A', 'P'};
constexpr char kEnd[8] = {'J', 'F', 'P', 'H', 'E', 'N', 'D', '!'};
constexpr uint32_t kVersion = 6;  // 3: names keyed by their identity (name_identity.h); 4: run evidence;
                                  // 5: the costliest recent failure as the yardstick, 256 folded characters;
                                  // 6: pooled keys by user (PoolUsers after the table)
constexpr uint32_t kEndian = 0x01020304;
constexpr uint32_t kSlotBytes = 12;   // key, index
constexpr uint32_t kValueBytes = 105;  // HistoryStats, field by field (no padding)
constexpr uint64_t kMaxString = 65536;
// A snapshot's image against its compressed file: ours compress 3-4x; a header declaring far more is damaged,
// and is not allowed to size anything.
constexpr uint64_t kMaxRatio = 16;
constexpr uint64_t kMaxImage = uint64_t{16} << 30;

class Out {
public:
    explicit Out(std::string &s) : s_(s) {}
    void raw(const void *p, size_t n) { s_.append(static_cast<const char *>(p), n); }
    void u32(uint32_t v) { raw(&v, 4); }
    void u64(uint64_t v) { raw(&v, 8); }
    void i64(int64_t v) { raw(&v, 8); }
    void str(const std::string &v) {
        u32(static_cast<uint32_t>(v.size()));
        raw(v.data(), v.size());
    }

private:
    std::string &s_;
};

// Reads through a ByteReader, never past the image's declared size; the first failure sticks.
class In {
public:
    In(ByteReader &r, uint64_t size) : r_(r), left_(size) {}
    bool raw(void *p, uint64_t n, const char *what) {
        if (!problem_.empty()) return false;
        if (n > left_) return fail(std::string("its ") + what + " runs past the end of the snapshot");
        if (!r_.read(p, n)) return fail(r_.error());
        left_ -= n;
        return true;
    }
    bool u32(uint32_t &v, const char *what) { return raw(&v, 4, what); }
    bool u64(uint64_t &v, const char *what) { return raw(&v, 8, what); }
    bool i64(int64_t &v, const char *what) { return raw(&v, 8, what); }
    bool str(std::string &v, const char *what) {
        uint32_t n = 0;
        if (!u32(n, what)) return false;
        if (n > kMaxString) return fail(std::string("a ") + what + " of " + std::to_string(n) + " bytes");
        v.resize(n);
        return raw(v.data(), n, what);
    }
    // A count of records of at least min_bytes each, checked against what is left.
    bool count(uint64_t &n, uint64_t min_bytes, const char *what) {
        if (!u64(n, what)) return false;
        if (n > left_ / min_bytes) return fail(std::to_string(n) + " " + what + " cannot fit in what is left of it");
        return true;
    }
    bool fail(std::string why) {
        if (problem_.empty()) problem_ = std::move(why);
        return false;
    }
    uint64_t left() const { return left_; }
    const std::string &problem() const { return problem_; }

private:
    ByteReader &r_;
    uint64_t left_;
    std::string problem_;
};

void put_stats(char *p, const HistoryStats &h) {
    uint32_t c[7] = {h.n, h.n_labeled, h.n_fail, h.n_timeout, h.n_oom, h.n_cancel, h.streak};
    std::memcpy(p, c, 28);
    std::memcpy(p + 28, &h.recent, 2);
    p[30] = static_cast<char>(h.recent_n);
    p[31] = static_cast<char>(h.last);
    std::memcpy(p + 32, &h.last_end, 8);
    std::memcpy(p + 40, &h.last_fail_end, 8);
    float f[5] = {h.max_ok_elapsed_s, h.max_rss_mb, h.max_ok_rss_mb, h.last_fail_timelimit_min, h.last_oom_req_mem_mb};
    std::memcpy(p + 48, f, 20);
    float w[7] = {h.w_fail, h.w_all, h.r_fail, h.r_all, h.w_streak, h.fail_used, h.run_ok_weight};
    std::memcpy(p + 68, w, 28);
    std::memcpy(p + 96, &h.run_key, 4);
    std::memcpy(p + 100, &h.run_jobs, 2);
    std::memcpy(p + 102, &h.run_fails, 2);
    p[104] = static_cast<char>(h.last_evident);
}

bool get_stats(const char *p, HistoryStats &h) {
    uint32_t c[7];
    std::memcpy(c, p, 28);
    h.n = c[0], h.n_labeled = c[1], h.n_fail = c[2], h.n_timeout = c[3], h.n_oom = c[4], h.n_cancel = c[5], h.streak = c[6];
    std::memcpy(&h.recent, p + 28, 2);
    h.recent_n = static_cast<uint8_t>(p[30]);
    h.last = static_cast<uint8_t>(p[31]);
    std::memcpy(&h.last_end, p + 32, 8);
    std::memcpy(&h.last_fail_end, p + 40, 8);
    float f[5];
    std::memcpy(f, p + 48, 20);
    h.max_ok_elapsed_s = f[0], h.max_rss_mb = f[1], h.max_ok_rss_mb = f[2], h.last_fail_timelimit_min = f[3],
    h.last_oom_req_mem_mb = f[4];
    float w[7];
    std::memcpy(w, p + 68, 28);
    h.w_fail = w[0], h.w_all = w[1], h.r_fail = w[2], h.r_all = w[3], h.w_streak = w[4], h.fail_used = w[5],
    h.run_ok_weight = w[6];
    std::memcpy(&h.run_key, p + 96, 4);
    std::memcpy(&h.run_jobs, p + 100, 2);
    std::memcpy(&h.run_fails, p + 102, 2);
    h.last_evident = static_cast<uint8_t>(p[104]);
    auto outcome_ok = [](uint8_t o) { return o <= static_cast<uint8_t>(Outcome::Other) || o == 255; };
    return h.recent_n <= HistoryStats::kRecent && outcome_ok(h.last) && outcome_ok(h.last_evident) &&
           h.run_fails <= h.run_jobs;
}

bool fits(const std::string &s) { return s.size() <= kMaxString; }

void put_latest(Out &o, const std::unordered_map<std::string, HistorySnapshot::Latest> &m) {
    uint64_t n = 0;
    for (const auto &[user, l] : m) n += fits(user) && fits(l.value);
    o.u64(n);
    for (const auto &[user, l] : m) {
        if (!fits(user) || !fits(l.value)) continue;
        o.str(user);
        o.str(l.value);
        o.i64(l.submit);
        o.str(fits(l.job) ? l.job : std::string());
    }
}

// A release string from a file, as a log line may show it.
std::string printable_release(const std::string &r) {
    std::string out;
    for (char c : r.substr(0, 40)) out += (c >= 0x21 && c <= 0x7e) ? c : '?';
    return out.empty() ? "(none)" : out;
}

uint64_t fnv1a(std::string_view s) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

bool get_latest(In &in, std::unordered_map<std::string, HistorySnapshot::Latest> &m, const char *what) {
    uint64_t n = 0;
    if (!in.count(n, 22, what)) return false;
    m.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
        std::string user;
        HistorySnapshot::Latest l;
        if (!in.str(user, what) || !in.str(l.value, what) || !in.i64(l.submit, what) || !in.str(l.job, what)) return false;
        m[std::move(user)] = std::move(l);
    }
    return true;
}

}  // namespace

// The index's raw table, written and read in the order it is in memory.
struct HistoryCodec {
    static void put(Out &o, const HistoryIndex &ix) {
        const StatsTable &t = ix.map_;
        o.u64(ix.added_);
        o.u64(t.slots_.size());
        o.u64(t.size_);
        char rec[kValueBytes];
        for (const StatsTable::Slot &s : t.slots_) {
            o.u64(s.key);
            o.u32(s.index);
        }
        for (size_t i = 0; i < t.size_; ++i) {
            put_stats(rec, t.value(static_cast<uint32_t>(i)));
            o.raw(rec, kValueBytes);
        }
        // The pooled keys' users, by key: the same index writes the same bytes.
        std::vector<uint64_t> keys;
        keys.reserve(ix.pools_.size());
        for (const auto &kv : ix.pools_) keys.push_back(kv.first);
        std::sort(keys.begin(), keys.end());
        o.u64(keys.size());
        for (uint64_t k : keys) {
            const PoolUsers &p = ix.pools_.at(k);
            o.u64(k);
            o.u32(p.n);
            for (int i = 0; i < p.n; ++i) {
                o.u64(p.user[i]);
                uint32_t bits;
                std::memcpy(&bits, &p.rate[i], 4);
                o.u32(bits);
            }
        }
    }

    static bool get_pools(In &in, HistoryIndex &ix) {
        uint64_t n = 0;
        if (!in.count(n, 12, "pooled users")) return false;
        ix.pools_.clear();
        ix.pools_.reserve(n);
        for (uint64_t i = 0; i < n; ++i) {
            uint64_t key = 0;
            uint32_t users = 0;
            if (!in.u64(key, "pooled users") || !in.u32(users, "pooled users")) return false;
            if (users > PoolUsers::kUsers) return in.fail("its pooled key holds " + std::to_string(users) + " users");
            if (ix.pools_.count(key)) return in.fail("its pooled users name one key twice");
            PoolUsers &p = ix.pools_[key];
            p.n = static_cast<uint8_t>(users);
            for (uint32_t u = 0; u < users; ++u) {
                uint32_t bits = 0;
                if (!in.u64(p.user[u], "pooled users") || !in.u32(bits, "pooled users")) return false;
                std::memcpy(&p.rate[u], &bits, 4);
                if (!(p.rate[u] >= 0 && p.rate[u] <= 1)) return in.fail("its pooled key holds a rate no history can have");
                for (uint32_t v = 0; v < u; ++v)
                    if (p.user[v] == p.user[u]) return in.fail("its pooled key holds one user twice");
            }
        }
        return true;
    }

    static bool get(In &in, HistoryIndex &ix) {
        StatsTable &t = ix.map_;
        uint64_t slots = 0, size = 0;
        if (!in.u64(ix.added_, "index") || !in.u64(slots, "index") || !in.u64(size, "index")) return false;
        // A lookup probes until it meets an empty slot: the table must be a power of two with room left, or
        // have no slot at all (an empty store's: lookups on it find nothing without probing).
        const bool empty = slots == 0 && size == 0;
        if (!empty && (slots < 16 || (slots & (slots - 1)) != 0 || slots > (uint64_t{1} << 33) || size > slots / 4 * 3 ||
                       size >= StatsTable::kNone))
            return in.fail("its index has " + std::to_string(size) + " keys in " + std::to_string(slots) + " slots");
        if (slots > in.left() / kSlotBytes || size > (in.left() - slots * kSlotBytes) / kValueBytes)
            return in.fail("its index is larger than the snapshot");
        t.slots_.assign(slots, StatsTable::Slot{});
        std::vector<bool> used(size, false);
        uint64_t occupied = 0;
        constexpr size_t kBatch = 8192;
        std::vector<char> buf(kBatch * kValueBytes);
        for (uint64_t at = 0; at < slots; at += kBatch) {
            size_t n = static_cast<size_t>(std::min<uint64_t>(kBatch, slots - at));
            if (!in.raw(buf.data(), n * kSlotBytes, "index")) return false;
            for (size_t k = 0; k < n; ++k) {
                StatsTable::Slot &s = t.slots_[at + k];
                std::memcpy(&s.key, buf.data() + k * kSlotBytes, 8);
                std::memcpy(&s.index, buf.data() + k * kSlotBytes + 8, 4);
                if (s.index == StatsTable::kNone) continue;
                if (s.index >= size || used[s.index]) return in.fail("its index has a slot pointing nowhere");
                used[s.index] = true;
                ++occupied;
            }
        }
        if (occupied != size) return in.fail("its index has " + std::to_string(occupied) + " keys, not " + std::to_string(size));
        t.size_ = static_cast<size_t>(size);
        t.chunks_.clear();
        for (uint64_t at = 0; at < size; at += kBatch) {
            size_t n = static_cast<size_t>(std::min<uint64_t>(kBatch, size - at));
            if (!in.raw(buf.data(), n * kValueBytes, "index values")) return false;
            for (size_t k = 0; k < n; ++k) {
                uint64_t index = at + k;
                if ((index & (StatsTable::kChunk - 1)) == 0) t.chunks_.emplace_back(new HistoryStats[StatsTable::kChunk]);
                if (!get_stats(buf.data() + k * kValueBytes, t.chunks_.back()[index & (StatsTable::kChunk - 1)]))
                    return in.fail("its index holds a value no history can have");
            }
        }
        return get_pools(in, ix);
    }
};

std::string snapshot_path_for(const std::string &store_path) { return store_path + ".snapshot"; }

uint64_t history_meaning() {
    static const uint64_t meaning = [] {
        // Two runs of one job: every key add() makes (user+name, stem, user, partition, account) and every
        // field of the stats, as this build computes them.
        HistoryIndex ix;
        JobRecord j;
        j.cluster = "c";
        j.user = "user";
        j.name = "run_017";
        j.partition = "p1,p2";
        j.account = "acct";
        j.submit = 100, j.start = 110, j.end = 4000;
        j.timelimit_min = 60, j.req_mem_mb = 2000, j.max_rss_mb = 1900, j.elapsed_s = 3890;
        j.job_key = "1";
        j.outcome = Outcome::Timeout;
        ix.add(j);
        j.job_key = "2";
        j.outcome = Outcome::OutOfMemory;
        j.end = 5000;
        ix.add(j);
        j.job_key = "3";
        j.outcome = Outcome::Completed;
        j.end = 6000;
        ix.add(j);
        // Two more users of the partition and account, interleaved: the pooled keys' users (PoolUsers).
        for (int k = 4; k < 8; ++k) {
            j.user = k % 2 ? "other" : "third";
            j.job_key = std::to_string(k);
            j.outcome = k % 3 ? Outcome::Failed : Outcome::Completed;
            j.end = 6000 + 100 * k;
            ix.add(j);
        }
        std::string image;
        Out o(image);
        HistoryCodec::put(o, ix);
        return fnv1a(image);
    }();
    return meaning;
}

std::string encode_history_snapshot(const HistorySnapshot &s, const std::string &lineage, const std::string &newest_ingest) {
    std::string image;
    image.reserve(64 + s.index.slot_count() * kSlotBytes + s.index.keys() * kValueBytes + 64 * s.uid_names.size());
    Out o(image);
    o.raw(kMagic, 8);
    o.u32(kVersion);
    o.u32(kEndian);
    o.u32(kSlotBytes);
    o.u32(kValueBytes);
    o.str(PACKAGE_VERSION);
    o.u64(history_meaning());
    o.i64(s.seq);
    o.i64(s.prunes);
    o.i64(s.latest_end);
    o.u64(s.jobs);
    o.str(fits(lineage) ? lineage : std::string());
    o.str(fits(newest_ingest) ? newest_ingest : std::string());
    HistoryCodec::put(o, s.index);
    uint64_t n = 0;
    for (const auto &[uid, name] : s.uid_names) n += fits(name);
    o.u64(n);
    for (const auto &[uid, name] : s.uid_names) {
        if (!fits(name)) continue;
        o.u32(uid);
        o.str(name);
    }
    put_latest(o, s.last_account);
    put_latest(o, s.last_qos);
    n = 0;
    for (const auto &u : s.users_without_uid) n += fits(u);
    o.u64(n);
    for (const auto &u : s.users_without_uid)
        if (fits(u)) o.str(u);
    n = 0;
    for (const auto &[job, token] : s.token_by_job) n += fits(job) && fits(token);
    o.u64(n);
    for (const auto &[job, token] : s.token_by_job) {
        if (!fits(job) || !fits(token)) continue;
        o.str(job);
        o.str(token);
    }
    o.raw(kEnd, 8);
    return image;
}

std::string decode_history_snapshot(ByteReader &r, uint64_t size, SnapshotFile &out) {
    In in(r, size);
    char magic[8];
    uint32_t version = 0, endian = 0, slot_bytes = 0, value_bytes = 0;
    if (!in.raw(magic, 8, "header")) return in.problem();
    if (std::memcmp(magic, kMagic, 8) != 0) return "it is not a jfp history snapshot";
    if (!in.u32(version, "header") || !in.u32(endian, "header") || !in.u32(slot_bytes, "header") ||
        !in.u32(value_bytes, "header"))
        return in.problem();
    if (version != kVersion || endian != kEndian || slot_bytes != kSlotBytes || value_bytes != kValueBytes)
        return "it was written by another jfp version or machine (format " + std::to_string(version) + ")";
    std::string release;
    uint64_t meaning = 0;
    if (!in.str(release, "header") || !in.u64(meaning, "header")) return in.problem();
    if (release != PACKAGE_VERSION || meaning != history_meaning())
        return "it was written by jfp " + printable_release(release) + (release == PACKAGE_VERSION ? " (another build)" : "") +
               ", whose history index may be keyed differently from this jfp " PACKAGE_VERSION "'s";
    HistorySnapshot &s = out.snap;
    if (!in.i64(s.seq, "header") || !in.i64(s.prunes, "header") || !in.i64(s.latest_end, "header") ||
        !in.u64(s.jobs, "header") || !in.str(out.lineage, "header") || !in.str(out.newest_ingest, "header"))
        return in.problem();
    if (!HistoryCodec::get(in, s.index)) return in.problem();
    uint64_t n = 0;
    if (!in.count(n, 9, "user names")) return in.problem();
    s.uid_names.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
        uint32_t uid = 0;
        std::string name;
        if (!in.u32(uid, "user names") || !in.str(name, "user names")) return in.problem();
        s.uid_names[uid] = std::move(name);
    }
    if (!get_latest(in, s.last_account, "accounts") || !get_latest(in, s.last_qos, "QOS")) return in.problem();
    if (!in.count(n, 5, "users without uid")) return in.problem();
    for (uint64_t i = 0; i < n; ++i) {
        std::string u;
        if (!in.str(u, "users without uid")) return in.problem();
        s.users_without_uid.insert(std::move(u));
    }
    if (!in.count(n, 10, "job tokens")) return in.problem();
    s.token_by_job.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
        std::string job, token;
        if (!in.str(job, "job tokens") || !in.str(token, "job tokens")) return in.problem();
        s.token_by_job[std::move(job)] = std::move(token);
    }
    char end[8];
    if (!in.raw(end, 8, "end mark")) return in.problem();
    if (std::memcmp(end, kEnd, 8) != 0 || in.left() != 0) return "its end mark is not where its contents end";
    return std::string();
}

uint64_t write_snapshot_file(const std::string &path, const HistorySnapshot &snap, const std::string &lineage,
                             const std::string &newest_ingest, const std::string &store_path) {
    std::string frame = zstd_frame(encode_history_snapshot(snap, lineage, newest_ingest), 1);
    // Readable as the store is, by whom it is: the plugin reads both as SlurmUser.
    struct stat st {};
    bool have_store = ::stat(store_path.c_str(), &st) == 0;
    mode_t mode = have_store ? (st.st_mode & 0640) | 0600 : 0600;
    std::string tmp = write_beside(path, frame, mode, "tmp");
    if (have_store && ::geteuid() == 0 && ::chown(tmp.c_str(), st.st_uid, st.st_gid) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        throw std::runtime_error("cannot give " + tmp + " to the store's owner: " + std::strerror(e));
    }
    rename_into_place(tmp, path);
    sync_directory_of(path);
    return frame.size();
}

SnapshotRead read_snapshot_file(const std::string &path, const std::vector<uid_t> &trusted) {
    SnapshotRead r;
    TrustedFile f(path, trusted);
    if (!f.problem().empty()) {
        r.problem = f.problem();
        return r;
    }
    ZstdFdReader z(f.fd());
    uint64_t declared = z.declared_size();
    if (declared == 0) {
        r.problem = path + ": " + z.error();
        return r;
    }
    uint64_t file = static_cast<uint64_t>(std::max<int64_t>(f.size(), 0));
    if (declared > kMaxImage || declared > file * kMaxRatio + (uint64_t{1} << 20)) {
        r.problem = path + ": it declares " + std::to_string(declared) + " bytes in a file of " + std::to_string(file) +
                    ": damaged";
        return r;
    }
    std::string why = decode_history_snapshot(z, declared, r.file);
    if (why.empty() && !z.finish()) why = z.error();
    if (!why.empty()) {
        r.problem = path + ": " + why;
        r.file = SnapshotFile();
        return r;
    }
    r.ok = true;
    return r;
}

}  // namespace jfp
