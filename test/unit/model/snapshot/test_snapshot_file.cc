// The history snapshot file is a shortcut to the replay of the store, never a second truth: whatever the
// store went through, the snapshot plus the changes since equals a replay, or it is not used and says why;
// a damaged, foreign or untrusted file is refused without a crash, a loop or an allocation it declares.
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <random>

#include "catch.h"
#include "history_workload.h"
#include "model/snapshot/snapshot_file.h"
#include "model/snapshot/snapshot_resume.h"
#include "test_support.h"
#include "jfp_config.h"

namespace test_snapshot_file {

using namespace jfp;
using jfp::test::TempDir;
using jfp::test::Workload;
using jfp::test::put;

namespace {

std::vector<uid_t> me() { return {0, ::geteuid()}; }

std::string read_all(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_all(const std::string &path, const std::string &bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
}

// A store of a few hundred jobs of five users, some running, with tokens and accounts.
void fill(HistoryStore &store, Workload &w, int rounds) {
    for (int r = 0; r < rounds; ++r) {
        std::vector<JobRecord> batch;
        for (int i = 0; i < 10; ++i) {
            w.clock += 1 + w.pick(3);
            JobRecord j = w.submit();
            if (w.pick(5) == 0) {
                w.running.push_back(j);
            } else {
                w.finish(j, w.clock);
                w.ended.push_back(j);
            }
            batch.push_back(j);
        }
        put(store, batch);
    }
}

// Lookups a submission makes, on a decoded index that may be damaged: they must end, in bounds (a loop
// that never ends hangs the test; a read out of bounds fails it under ASan, scripts/sanitize). Returns the
// keys found.
int look_up_some(const HistorySnapshot &s) {
    int found = 0;
    for (int u = 0; u < 6; ++u) {
        JobRequest r;
        r.user = "u" + std::to_string(u);
        r.name = "app" + std::to_string(u % 4);
        r.partition = "batch";
        r.account = "acct1";
        HistoryView v = s.index.lookup(r);
        found += (v.user != nullptr) + (v.user_name != nullptr) + (v.partition != nullptr);
    }
    return found;
}

}  // namespace

TEST_CASE("snapshot file: the image decodes to the same history, and the file round-trips through zstd") {
    TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    Workload w(11);
    fill(store, w, 30);
    HistorySnapshot snap = load_history_snapshot(store);
    REQUIRE(snap.index.keys() > 20);
    REQUIRE_FALSE(snap.token_by_job.empty());
    REQUIRE_FALSE(snap.last_account.empty());

    std::string image = encode_history_snapshot(snap, store.lineage());
    MemoryReader in(image);
    SnapshotFile back;
    REQUIRE(decode_history_snapshot(in, image.size(), back) == "");
    std::string why;
    CHECK(same_history(snap, back.snap, &why));
    CHECK(why.empty());
    CHECK(back.lineage == store.lineage());
    CHECK(back.snap.seq == snap.seq);
    CHECK(back.snap.prunes == snap.prunes);

    std::string path = snapshot_path_for(dir.file("h.db"));
    uint64_t bytes = write_snapshot_file(path, snap, store.lineage(), store.newest_ingest_mark(), dir.file("h.db"));
    CHECK(bytes < image.size());  // compressed
    SnapshotRead r = read_snapshot_file(path, me());
    INFO(r.problem);
    REQUIRE(r.ok);
    CHECK(same_history(snap, r.file.snap));
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0077) == 0);  // the store is 0600 here: so is its snapshot
}

TEST_CASE("snapshot file: an empty store's snapshot (after a prune removed every job) reads back as empty") {
    TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    HistorySnapshot snap = load_history_snapshot(store);
    REQUIRE(snap.index.keys() == 0);
    std::string path = snapshot_path_for(dir.file("h.db"));
    write_snapshot_file(path, snap, store.lineage(), store.newest_ingest_mark(), dir.file("h.db"));
    SnapshotRead r = read_snapshot_file(path, me());
    INFO(r.problem);
    REQUIRE(r.ok);
    CHECK(r.file.snap.index.keys() == 0);
    CHECK(same_history(snap, r.file.snap));
}

TEST_CASE("snapshot file: resumed from any point of any ingest sequence, it equals a replay or says why not") {
    for (uint64_t seed : {21u, 22u, 23u, 24u}) {
        TempDir dir;
        const std::string db = dir.file("h.db"), path = snapshot_path_for(db);
        HistoryStore store(db, HistoryStore::Access::ReadWrite);
        Workload w(seed);
        int resumed = 0, refused = 0;
        int64_t latest_end = 0;
        for (int round = 0; round < 50; ++round) {
            int action = w.pick(7);
            std::vector<JobRecord> batch;
            if (action <= 2) {  // new jobs in end order, some still running
                for (int i = 0, n = 1 + w.pick(10); i < n; ++i) {
                    w.clock += w.pick(3);
                    JobRecord j = w.submit();
                    if (w.pick(4) == 0) {
                        w.running.push_back(j);
                    } else {
                        w.finish(j, w.clock);
                        w.ended.push_back(j);
                    }
                    batch.push_back(j);
                }
            } else if (action == 3) {  // running jobs end
                while (!w.running.empty() && batch.size() < 3) {
                    JobRecord j = w.running.back();
                    w.running.pop_back();
                    w.clock += 1;
                    w.finish(j, w.clock);
                    w.ended.push_back(j);
                    batch.push_back(j);
                }
            } else if (action == 4 && latest_end) {  // a late export
                JobRecord j = w.submit();
                j.submit -= 7200;
                w.finish(j, latest_end - 1 - w.pick(600));
                w.ended.push_back(j);
                batch.push_back(j);
            } else if (action == 5) {  // jfp ingest writes the snapshot now
                SnapshotRefresh f = refresh_snapshot(db);
                CHECK(f.jobs == load_history_snapshot(store).jobs);
            } else if (action == 6 && !w.ended.empty()) {  // a stored job re-ingested with another outcome
                JobRecord &j = w.ended[static_cast<size_t>(w.pick(static_cast<int>(w.ended.size())))];
                j.outcome = j.outcome == Outcome::Completed ? Outcome::Failed : Outcome::Completed;
                j.state = j.outcome == Outcome::Completed ? "COMPLETED" : "FAILED";
                batch.push_back(j);
            }
            if (!batch.empty()) put(store, batch);
            HistorySnapshot replay = load_history_snapshot(store);
            latest_end = replay.latest_end;
            ResumedHistory r = resume_history(store, path, me());
            INFO("seed " << seed << " round " << round << " action " << action << ": " << r.why_not);
            if (r.ok) {
                ++resumed;
                std::string why;
                REQUIRE(same_history(r.snap, replay, &why));
                CHECK(r.snap.seq == replay.seq);
            } else {
                ++refused;
                CHECK_FALSE(r.why_not.empty());
            }
            // Brought up to date, it resumes with nothing left to apply.
            if (w.pick(4) == 0) {
                refresh_snapshot(db);
                ResumedHistory again = resume_history(store, path, me());
                REQUIRE(again.ok);
                CHECK(again.applied == 0);
                CHECK(same_history(again.snap, replay));
            }
        }
        CHECK(resumed > 10);
        CHECK(refused > 0);  // before the first snapshot, at least
    }
}

TEST_CASE("snapshot file: a snapshot of another store, or of this one before a prune, is not used") {
    TempDir dir;
    const std::string a = dir.file("a.db"), b = dir.file("b.db");
    Workload wa(31), wb(32);
    {
        HistoryStore sa(a, HistoryStore::Access::ReadWrite);
        fill(sa, wa, 5);
        ::sleep(1);  // the stores' first ingests differ in time, as two sites' do
        HistoryStore sb(b, HistoryStore::Access::ReadWrite);
        fill(sb, wb, 8);
    }
    refresh_snapshot(a);
    write_all(snapshot_path_for(b), read_all(snapshot_path_for(a)));
    ::chmod(snapshot_path_for(b).c_str(), 0600);
    HistoryStore sb(b, HistoryStore::Access::ReadOnly);
    ResumedHistory r = resume_history(sb, snapshot_path_for(b), me());
    CHECK_FALSE(r.ok);
    CHECK(r.why_not.find("another store") != std::string::npos);

    // Pruned after its snapshot: the removed jobs are in the file, so it is replayed instead.
    {
        HistoryStore sa(a, HistoryStore::Access::ReadWrite);
        auto c = sa.prune(wa.clock - 20, 0, true);
        REQUIRE(c.jobs > 0);
    }
    HistoryStore sa(a, HistoryStore::Access::ReadOnly);
    r = resume_history(sa, snapshot_path_for(a), me());
    CHECK_FALSE(r.ok);
    INFO(r.why_not);
    CHECK(r.why_not.find("pruned") != std::string::npos);
    SnapshotRefresh f = refresh_snapshot(a);
    CHECK(f.written);
    CHECK_FALSE(f.incremental);
    r = resume_history(sa, snapshot_path_for(a), me());
    REQUIRE(r.ok);
    CHECK(same_history(r.snap, load_history_snapshot(sa)));
}

TEST_CASE("snapshot file: refused when anyone but root or SlurmUser could have written it") {
    TempDir dir;
    const std::string db = dir.file("h.db");
    {
        HistoryStore s(db, HistoryStore::Access::ReadWrite);
        Workload w(41);
        fill(s, w, 3);
    }
    refresh_snapshot(db);
    const std::string path = snapshot_path_for(db);
    ::chmod(path.c_str(), 0666);
    SnapshotRead r = read_snapshot_file(path, me());
    CHECK_FALSE(r.ok);
    CHECK(r.problem.find("writable") != std::string::npos);
    ::chmod(path.c_str(), 0600);
    CHECK(read_snapshot_file(path, me()).ok);
    // Owned by a uid not trusted (the file is root's or this user's; trust only another uid).
    r = read_snapshot_file(path, {::geteuid() + 12345});
    CHECK_FALSE(r.ok);
}

TEST_CASE("snapshot file: every cut, flipped byte or trailing byte of the file is refused (zstd's checksum)") {
    TempDir dir;
    const std::string db = dir.file("h.db");
    {
        HistoryStore s(db, HistoryStore::Access::ReadWrite);
        Workload w(51);
        fill(s, w, 20);
    }
    refresh_snapshot(db);
    const std::string path = snapshot_path_for(db);
    const std::string good = read_all(path);
    REQUIRE(read_snapshot_file(path, me()).ok);
    std::mt19937_64 rng(5);
    int refused = 0;
    for (int i = 0; i < 300; ++i) {
        std::string bad = good;
        int kind = i % 3;
        if (kind == 0) {
            bad.resize(rng() % good.size());
        } else if (kind == 1) {
            size_t at = rng() % bad.size();
            bad[at] = static_cast<char>(bad[at] ^ (1 + rng() % 255));
        } else {
            bad += std::string(1 + rng() % 40, static_cast<char>(rng()));
        }
        write_all(path, bad);
        SnapshotRead r = read_snapshot_file(path, me());
        INFO("case " << i << " kind " << kind);
        CHECK_FALSE(r.ok);
        if (!r.ok) ++refused;
        CHECK(r.problem.find(path) != std::string::npos);
    }
    CHECK(refused == 300);
}

TEST_CASE("snapshot file: a damaged image (its checksum aside) is refused or decodes to a table lookups can use") {
    TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    Workload w(61);
    fill(store, w, 10);
    HistorySnapshot snap = load_history_snapshot(store);
    const std::string lineage = store.lineage();
    const std::string image = encode_history_snapshot(snap, lineage);

    // Every truncation is refused.
    for (size_t n = 0; n < image.size(); n += 1 + n / 50) {
        MemoryReader in(std::string_view(image).substr(0, n));
        SnapshotFile out;
        CHECK_FALSE(decode_history_snapshot(in, n, out).empty());
    }
    // Random damage: refused, or a table whose lookups end in bounds (ASan and the loop's end say so).
    std::mt19937_64 rng(7);
    int refused = 0;
    for (int i = 0; i < 2000; ++i) {
        std::string bad = image;
        for (int k = 0, flips = 1 + static_cast<int>(rng() % 4); k < flips; ++k) {
            size_t at = rng() % bad.size();
            bad[at] = static_cast<char>(rng());
        }
        MemoryReader in(bad);
        SnapshotFile out;
        if (!decode_history_snapshot(in, bad.size(), out).empty()) {
            ++refused;
            continue;
        }
        look_up_some(out.snap);
    }
    CHECK(refused > 100);
    {
        MemoryReader in(image);
        SnapshotFile out;
        REQUIRE(decode_history_snapshot(in, image.size(), out).empty());
        CHECK(look_up_some(out.snap) == look_up_some(snap));
        CHECK(look_up_some(snap) > 6);
    }

    // The slot array: where it starts, and the checks that keep a lookup in bounds.
    const std::string release = PACKAGE_VERSION;
    const std::string newest = store.newest_ingest_mark();
    REQUIRE(image.find(newest) == std::string::npos);  // encoded above without it
    const size_t slots_at = 8 + 16 + 4 + release.size() + 8 + 8 * 4 + 4 + lineage.size() + 4 + 8 * 3;
    auto u64_at = [&](size_t off) {
        uint64_t v;
        std::memcpy(&v, image.data() + off, 8);
        return v;
    };
    const uint64_t slot_count = u64_at(slots_at - 16), keys = u64_at(slots_at - 8);
    REQUIRE(slot_count == snap.index.slot_count());
    REQUIRE(keys == snap.index.keys());
    size_t occupied = 0;
    while (true) {
        uint32_t idx;
        std::memcpy(&idx, image.data() + slots_at + occupied * 12 + 8, 4);
        if (idx != UINT32_MAX) break;
        ++occupied;
    }
    auto refused_with = [&](std::string bad, const char *words) {
        MemoryReader in(bad);
        SnapshotFile out;
        std::string why = decode_history_snapshot(in, bad.size(), out);
        INFO(why);
        CHECK(why.find(words) != std::string::npos);
    };
    std::string bad = image;
    uint32_t past = static_cast<uint32_t>(keys + 5);
    std::memcpy(bad.data() + slots_at + occupied * 12 + 8, &past, 4);
    refused_with(bad, "pointing nowhere");
    bad = image;
    uint64_t odd = slot_count + 1;
    std::memcpy(bad.data() + slots_at - 16, &odd, 8);
    refused_with(bad, "slots");
    bad = image;
    uint64_t full = slot_count;  // no empty slot: a lookup of a missing key would never end
    std::memcpy(bad.data() + slots_at - 8, &full, 8);
    refused_with(bad, "slots");
    bad = image;
    bad.replace(0, 8, "NOTJFP!!");
    refused_with(bad, "not a jfp history snapshot");
    // Another release, or another meaning of the keys: not used, whatever the rest says.
    bad = image;
    bad[8 + 16 + 4] = static_cast<char>(bad[8 + 16 + 4] ^ 1);
    refused_with(bad, "written by jfp");
    bad = image;
    bad[8 + 16 + 4 + release.size()] = static_cast<char>(bad[8 + 16 + 4 + release.size()] ^ 1);
    refused_with(bad, "another build");
    // A count no file could hold is refused before anything is sized by it.
    bad = image;
    const size_t names_at = slots_at + slot_count * 12 + keys * 105;
    uint64_t huge = uint64_t{1} << 60;
    std::memcpy(bad.data() + names_at, &huge, 8);
    refused_with(bad, "cannot fit");
}

TEST_CASE("snapshot file: a store restored from a backup is replayed, though its change numbers catch up") {
    TempDir dir;
    const std::string db = dir.file("h.db"), backup = dir.file("backup.db");
    Workload w(71);
    {
        HistoryStore s(db, HistoryStore::Access::ReadWrite);
        fill(s, w, 5);
        Db raw(db, SQLITE_OPEN_READWRITE);
        raw.exec(("VACUUM INTO '" + backup + "'").c_str());
        fill(s, w, 5);  // the ingests the backup lacks
    }
    refresh_snapshot(db);
    // Restored: the backup in the store's place; new ingests take the numbers the lost ones had.
    std::remove((db + "-wal").c_str());
    std::remove((db + "-shm").c_str());
    REQUIRE(std::rename(backup.c_str(), db.c_str()) == 0);
    HistoryStore s(db, HistoryStore::Access::ReadWrite);
    Workload other(72);
    other.clock = w.clock + 100000;
    other.next_id = 100000;
    fill(s, other, 8);
    SnapshotRead f = read_snapshot_file(snapshot_path_for(db), me());
    REQUIRE(f.ok);
    REQUIRE(s.last_change() >= f.file.snap.seq);  // the numbers alone cannot tell
    ResumedHistory r = resume_history(s, snapshot_path_for(db), me());
    CHECK_FALSE(r.ok);
    CHECK(r.why_not.find("restored from a backup") != std::string::npos);
    SnapshotRefresh again = refresh_snapshot(db);
    CHECK_FALSE(again.incremental);
    r = resume_history(s, snapshot_path_for(db), me());
    REQUIRE(r.ok);
    CHECK(same_history(r.snap, load_history_snapshot(s)));
}

TEST_CASE("snapshot file: a string too long for the file is left out of it, not made to spoil the file") {
    TempDir dir;
    HistoryStore store(dir.file("h.db"), HistoryStore::Access::ReadWrite);
    Workload w(81);
    fill(store, w, 3);
    HistorySnapshot snap = load_history_snapshot(store);
    const std::string long_id = "123_[" + std::string(70000, '1') + "]";  // a pending array's id, as a user can write it
    snap.token_by_job[long_id] = "tok";
    snap.last_account["u1"].job = std::string(70000, 'j');
    std::string image = encode_history_snapshot(snap, store.lineage(), store.newest_ingest_mark());
    MemoryReader in(image);
    SnapshotFile out;
    REQUIRE(decode_history_snapshot(in, image.size(), out) == "");
    CHECK(out.snap.token_by_job.count(long_id) == 0);
    CHECK(out.snap.token_by_job.size() == snap.token_by_job.size() - 1);
    CHECK(out.snap.last_account.at("u1").value == snap.last_account.at("u1").value);
    CHECK(out.snap.index == snap.index);
}

}  // namespace test_snapshot_file
