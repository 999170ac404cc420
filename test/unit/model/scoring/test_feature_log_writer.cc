// The feature log (model/scoring/feature_log*): its writer and the submit path (a submission never waits for it,
// and wakes it, a system call on slurmctld's thread, only in a burst), its file's rotation and removal, its
// prune, and the script scanned later by the writer.
#include "catch.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "model/scoring/feature_log.h"
#include "model/scoring/features.h"
#include "test_support.h"

namespace test_feature_log_writer {

using namespace jfp;

namespace {
// Descriptors of this process still open on a deleted file under dir (what `rm` under a writer leaves).
int deleted_files_held(const std::string &dir) {
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    while (dirent *ent = readdir(d)) {
        char target[4096];
        ssize_t len = readlink((std::string("/proc/self/fd/") + ent->d_name).c_str(), target, sizeof target - 1);
        if (len <= 0) continue;
        std::string t(target, static_cast<size_t>(len));
        if (t.rfind(dir, 0) == 0 && t.find("(deleted)") != std::string::npos) ++n;
    }
    closedir(d);
    return n;
}

FeatureLogEntry logged(const std::string &token) {
    FeatureLogEntry e;
    e.token = token;
    e.model_id = std::make_shared<const std::string>("m");
    return e;
}

// Pushes an entry every 100 ms until path exists again (the writer noticed and opened a new file).
bool rows_reach_new_file(FeatureLogWriter &w, const std::string &path, int &pushed) {
    for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(15); std::chrono::steady_clock::now() < end;) {
        REQUIRE(w.push(logged("after" + std::to_string(pushed++))));
        w.flush();
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
}


FeatureLogEntry entry(int i) {
    FeatureLogEntry e;
    e.token = "tok" + std::to_string(i);
    e.model_id = std::make_shared<const std::string>("m");
    e.x.fill(static_cast<float>(i));
    return e;
}

// Waits (at most a minute: a condition that must come, not a timing) until the writer has written n.
bool written_within(const FeatureLogWriter &w, uint64_t n) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (w.written() < n) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

}  // namespace

TEST_CASE("feature log writer: a submission wakes it only once a burst of kWakeDepth waits") {
    test::TempDir dir;
    // An hour between the timer's looks when idle: only a wake drains a burst.
    FeatureLogWriter w(dir.file("f.db"), 4096, FeatureLogWriter::kMaxHeadsInUse, std::chrono::hours(1));
    REQUIRE(w.push(entry(0)));
    w.flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // it goes back to sleep (asserted or not below)
    const int depth = static_cast<int>(FeatureLogWriter::kWakeDepth);
    int pushed = 1;
    for (; pushed < depth; ++pushed) REQUIRE(w.push(entry(pushed)));
    CHECK(w.wakes() == 0);  // kWakeDepth - 1 waiting: no wake, whatever the writer does
    REQUIRE(w.push(entry(pushed++)));
    // Woken, unless it was still awake and had already written some of them.
    CHECK((w.wakes() == 1 || w.written() > 1));
    // With an hour's timer, the burst is written because of the wake.
    REQUIRE(written_within(w, static_cast<uint64_t>(pushed)));

    // A second burst: one more wake at most, never one per entry. Ended by a flush, whose wake is never
    // lost (the writer's short look after the first burst may have taken part of it, leaving less than
    // kWakeDepth waiting, and the timer is an hour).
    for (int i = 0; i < depth; ++i) REQUIRE(w.push(entry(pushed++)));
    CHECK(w.wakes() <= 2);
    w.flush();
    CHECK(w.written() == static_cast<uint64_t>(pushed));
    CHECK(w.dropped() == 0);
}

TEST_CASE("feature log writer: a queue smaller than twice kWakeDepth wakes it at half its capacity") {
    test::TempDir dir;
    FeatureLogWriter w(dir.file("f.db"), 8, FeatureLogWriter::kMaxHeadsInUse, std::chrono::hours(1));
    REQUIRE(w.push(entry(0)));
    w.flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (int i = 1; i < 4; ++i) REQUIRE(w.push(entry(i)));
    CHECK(w.wakes() == 0);
    REQUIRE(w.push(entry(4)));
    CHECK((w.wakes() == 1 || w.written() > 1));
    // Without the wake at 4, an 8-entry queue would fill and drop for the hour the timer sleeps.
    REQUIRE(written_within(w, 5));
    CHECK(w.dropped() == 0);
}

TEST_CASE("feature log writer: a trickle is written by the timer, at most one wake per kWakeDepth entries") {
    test::TempDir dir;
    FeatureLogWriter w(dir.file("f.db"), 1024);
    const int n = 100;
    for (int i = 0; i < n; ++i) {
        REQUIRE(w.push(entry(i)));
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    REQUIRE(written_within(w, n));
    // 2 ms apart, the 50 ms timer keeps the queue far below kWakeDepth (a writer starved past 128 ms may
    // see one wake). Waking every 32 entries, as before, would be 3.
    CHECK(w.wakes() <= 1);
}

TEST_CASE("feature log writer: from many threads at once, wakes stay a small share of the entries and none is lost") {
    test::TempDir dir;
    const uint64_t per_thread = 5000;
    const int threads = 4;
    FeatureLogWriter w(dir.file("f.db"), 1 << 16);
    std::vector<std::thread> pushers;
    for (int t = 0; t < threads; ++t)
        pushers.emplace_back([&, t] {
            for (uint64_t i = 0; i < per_thread; ++i) w.push(entry(static_cast<int>(t * per_thread + i)));
        });
    for (auto &p : pushers) p.join();
    w.flush();
    const uint64_t total = per_thread * threads;
    CHECK(w.written() + w.dropped() == total);
    CHECK(w.dropped() == 0);
    // A wake needs kWakeDepth entries counted and not yet written, and clears only when the writer next
    // goes to its wait (a short one while entries are counted but not yet visible in the queue).
    CHECK(w.wakes() <= total / FeatureLogWriter::kWakeDepth + 1);
}

TEST_CASE("feature log writer: a stream it is already draining does not wake it again") {
    test::TempDir dir;
    FeatureLogWriter w(dir.file("f.db"), 1 << 16);
    // Back to back from one thread, far faster than the writer writes: after the first burst's wake the
    // writer looks every kBusyWait by itself, and a wake would only put a futex call on a submission.
    const uint64_t n = 20000;
    for (uint64_t i = 0; i < n; ++i) REQUIRE(w.push(entry(static_cast<int>(i))));
    w.flush();
    CHECK(w.written() == n);
    INFO("wakes: " << w.wakes());
    // One for the first burst; one more each time this thread, descheduled past kBusyHold, let the writer
    // fall back to its long wait (twice allowed: sanitizer builds run slowly). The rule before (wake
    // whenever kWakeDepth waited again) woke it 5 times here.
    CHECK(w.wakes() <= 3);
}

TEST_CASE("feature log writer: a burst's script heads are kept while it lasts and trimmed once the writer is quiet") {
    test::TempDir dir;
    FeatureLogWriter w(dir.file("f.db"), 4096);
    const std::string script = "#!/bin/bash\n#SBATCH -n 4\nsrun ./a.out\n";
    const int n = 600;  // past the idle heads kept, all out at once: taken before any is pushed
    std::vector<FeatureLogEntry> burst;
    for (int i = 0; i < n; ++i) {
        burst.push_back(entry(i));
        burst.back().script = w.defer(script);
        REQUIRE(burst.back().script.pending());
    }
    auto t0 = std::chrono::steady_clock::now();
    for (auto &e : burst) REQUIRE(w.push(std::move(e)));
    burst.clear();
    w.flush();
    CHECK(w.heads_in_use() == 0);
    // Right after the burst its blocks wait for the next one. The writer cannot trim before kBusyHold
    // has passed since a commit after t0, so a count read before that is the burst's (a slower run
    // skips the check: it cannot tell).
    const size_t idle = w.heads_idle();
    if (std::chrono::steady_clock::now() - t0 < FeatureLogWriter::kBusyHold) CHECK(idle > FeatureLogWriter::kIdleHeads);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (w.heads_idle() > FeatureLogWriter::kIdleHeads && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    CHECK(w.heads_idle() == FeatureLogWriter::kIdleHeads);
    CHECK(w.written() == static_cast<uint64_t>(n));
}

TEST_CASE("feature log writer: after a burst, a trickle returns it to its idle timer and trims the heads") {
    test::TempDir dir;
    FeatureLogWriter w(dir.file("f.db"), 4096);
    const std::string script = "#!/bin/bash\nsrun ./a.out\n";
    std::vector<FeatureLogEntry> burst;
    for (int i = 0; i < 600; ++i) {  // all deferred before any push: 600 heads out at once
        burst.push_back(entry(i));
        burst.back().script = w.defer(script);
    }
    for (auto &e : burst) REQUIRE(w.push(std::move(e)));
    burst.clear();
    w.flush();
    // One entry every 20 ms: fewer than kWakeDepth / 4 within a hold, so the busy cadence ends and the
    // burst's blocks are trimmed while the trickle goes on (a hold renewed by any batch never trimmed).
    bool trimmed = false;
    for (int i = 0; i < 100 && !trimmed; ++i) {
        FeatureLogEntry e = entry(1000 + i);
        e.script = w.defer(script);
        REQUIRE(w.push(std::move(e)));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        trimmed = w.heads_idle() <= FeatureLogWriter::kIdleHeads;
    }
    CHECK(trimmed);
}

TEST_CASE("feature log writer: rows left out by a spent budget count as done; they do not keep waking it") {
    test::TempDir dir;
    auto budget = std::make_shared<UserWriteBudget>(1);  // the first row spends the day
    // An 8-entry queue wakes the writer at 4 waiting; an hour's timer: only wakes and flushes drain.
    FeatureLogWriter w(dir.file("f.db"), 8, FeatureLogWriter::kMaxHeadsInUse, std::chrono::hours(1), budget);
    for (int i = 0; i < 20; ++i) {
        FeatureLogEntry e = entry(i);
        e.uid = 7;
        REQUIRE(w.push(std::move(e)));
        w.flush();
    }
    REQUIRE(w.over_budget() >= 19);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    // Three waiting, under the wake depth of 4. Counted as not done, the 19 left out made every push a
    // wake, and kept the writer looking every 2 ms for good.
    for (int i = 20; i < 23; ++i) {
        FeatureLogEntry e = entry(i);
        e.uid = 7;
        REQUIRE(w.push(std::move(e)));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(w.wakes() == 0);
    w.flush();
    CHECK(w.written() + w.over_budget() == 23);
}

TEST_CASE("feature log: removed or rotated under the writer, it is closed (space freed) and started afresh") {
    test::TempDir dir;
    std::string path = dir.file("f.db");
    FeatureLogWriter w(path, 64);
    for (int i = 0; i < 5; ++i) REQUIRE(w.push(logged("before" + std::to_string(i))));
    w.flush();
    REQUIRE(w.written() == 5);

    SECTION("logrotate renames it: the old file keeps its rows, the next ones go to a new file") {
        REQUIRE(::rename(path.c_str(), (path + ".1").c_str()) == 0);
        int pushed = 0;
        REQUIRE(rows_reach_new_file(w, path, pushed));
        w.flush();
        CHECK(read_feature_log(path + ".1").size() >= 5);  // its WAL was checkpointed into it on close
        CHECK(read_feature_log(path + ".1").count("before4") == 1);
        auto fresh = read_feature_log(path);
        CHECK(fresh.size() >= 1);
        CHECK(fresh.size() + read_feature_log(path + ".1").size() == 5 + static_cast<size_t>(pushed));
    }
    SECTION("an admin removes it: no descriptor keeps the deleted file, a new one is created") {
        for (const char *suffix : {"", "-wal", "-shm"}) ::unlink((path + suffix).c_str());
        CHECK(deleted_files_held(dir.path()) > 0);  // the writer holds the removed file until it notices
        int pushed = 0;
        REQUIRE(rows_reach_new_file(w, path, pushed));
        w.flush();
        CHECK(deleted_files_held(dir.path()) == 0);
        CHECK(read_feature_log(path).size() >= 1);
        struct stat st {};
        REQUIRE(::stat(path.c_str(), &st) == 0);
        CHECK((st.st_mode & 0777) == 0600);
    }
}

TEST_CASE("feature log: written in the background, read back by token; a full queue drops and counts") {
    test::TempDir dir;
    {
        FeatureLogWriter w(dir.file("f.db"), 64);
        for (int i = 0; i < 50; ++i) {
            FeatureLogEntry e;
            e.token = "tok" + std::to_string(i);
            e.model_id = std::make_shared<const std::string>("m");
            e.p_fail = static_cast<float>(i) / 100.0f;
            e.x.fill(static_cast<float>(i));
            e.x[F_un_fail_rate] = std::nanf("");
            REQUIRE(w.push(std::move(e)));
        }
        w.flush();
        CHECK(w.written() == 50);
        CHECK(w.dropped() == 0);
    }
    auto log = read_feature_log(dir.file("f.db"));
    REQUIRE(log.size() == 50);
    CHECK(log.at("tok7").x[F_req_cpus] == 7);
    CHECK(std::isnan(log.at("tok7").x[F_un_fail_rate]));
    CHECK(log.at("tok7").p_fail == Approx(0.07));

    FeatureLogWriter tiny(dir.file("g.db"), 0);
    FeatureLogEntry e;
    CHECK_FALSE(tiny.push(std::move(e)));
    CHECK(tiny.dropped() == 1);

    // An unwritable path: entries fail, nothing blocks.
    FeatureLogWriter bad("/nonexistent/dir/f.db", 8);
    FeatureLogEntry e2;
    e2.token = "x";
    CHECK(bad.push(std::move(e2)));
    bad.flush();
    CHECK(bad.failed() >= 1);
}

TEST_CASE("feature log: a submission whose token another job's row has is not logged; the earlier row is kept") {
    test::TempDir dir;
    {
        FeatureLogWriter w(dir.file("f.db"), 64);
        FeatureLogEntry first = entry(1), second = entry(2), third = entry(3), update = entry(4);
        first.token = second.token = update.token = "6b0cc90012345678";
        first.uid = 1001;
        second.uid = 2002;  // another controller's job, its token issued in the same second
        update.uid = 1001;
        update.update = true;  // the first job's own update replaces its row, as before
        REQUIRE(w.push(std::move(first)));
        w.flush();
        REQUIRE(w.push(std::move(second)));
        REQUIRE(w.push(std::move(third)));
        w.flush();
        CHECK(w.written() == 2);
        CHECK(w.failed() == 1);
        auto log = read_feature_log(dir.file("f.db"));
        REQUIRE(log.count("6b0cc90012345678") == 1);
        CHECK(log.at("6b0cc90012345678").uid == 1001);
        CHECK(log.at("6b0cc90012345678").x[F_req_cpus] == 1);
        CHECK(log.at("tok3").x[F_req_cpus] == 3);  // the batch went on past it
        REQUIRE(w.push(std::move(update)));
        w.flush();
        CHECK(w.written() == 3);
        CHECK(w.failed() == 1);
    }
    auto log = read_feature_log(dir.file("f.db"));
    CHECK(log.size() == 2);
    CHECK(log.at("6b0cc90012345678").x[F_req_cpus] == 4);
}

TEST_CASE("feature log: over random submissions and updates with tokens that meet, each token's row is its first "
          "submission's or its latest update's") {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        INFO("seed " << seed);
        std::mt19937_64 rng(seed);
        test::TempDir dir;
        std::map<std::string, int> want;  // token -> the entry whose row it must be
        uint64_t accepted = 0, refused = 0;
        {
            FeatureLogWriter w(dir.file("f.db"), 4096);
            const int tokens = 5 + static_cast<int>(rng() % 60), n = 300 + static_cast<int>(rng() % 300);
            for (int i = 0; i < n; ++i) {
                FeatureLogEntry e = entry(i);  // its features are all i, script features included
                e.token = "6b0cc900" + std::to_string(10000000 + rng() % static_cast<uint64_t>(tokens));
                e.uid = static_cast<uint32_t>(i);
                e.update = rng() % 3 == 0;
                const std::string token = e.token.str();
                if (e.update || !want.count(token)) {
                    want[token] = i;
                    ++accepted;
                } else {
                    ++refused;
                }
                REQUIRE(w.push(std::move(e)));
                if (rng() % 50 == 0) w.flush();  // batches of every size, boundaries anywhere
            }
            w.flush();
            CHECK(w.written() == accepted);
            CHECK(w.failed() == refused);
        }
        auto log = read_feature_log(dir.file("f.db"));
        REQUIRE(log.size() == want.size());
        for (const auto &[token, i] : want) {
            INFO("token " << token);
            REQUIRE(log.count(token) == 1);
            CHECK(log.at(token).uid == static_cast<uint32_t>(i));
            CHECK(log.at(token).x[F_req_cpus] == static_cast<float>(i));
        }
    }
}

TEST_CASE("feature log: pruned while the plugin's writer keeps writing, no row is lost or refused") {
    test::TempDir dir;
    const std::string path = dir.file("f.db");
    FeatureLogWriter w(path, 4096);
    uint64_t pushed = 0;
    auto push_at = [&](const std::string &token, int64_t at) {
        ++pushed;
        FeatureLogEntry e = logged(token);
        e.scored_at = at;
        while (!w.push(std::move(e))) {  // a full queue would drop: wait for room instead, this test counts rows
            w.flush();
            e = logged(token);
            e.scored_at = at;
        }
    };
    for (int i = 0; i < 12000; ++i) push_at("old" + std::to_string(i), 1000 + i);
    for (int i = 0; i < 300; ++i) push_at("new" + std::to_string(i), 100000 + i);
    w.flush();
    REQUIRE(w.written() == 12300);

    FeatureLogPrune dry, r;
    prune_feature_log(path, 50000, false, false, dry);
    CHECK(dry.removed == 12000);
    CHECK(dry.kept == 300);
    CHECK(read_feature_log(path).size() == 12300);

    // The writer goes on while the prune runs (in batches of 5000: three transactions here).
    std::atomic<bool> pruning{true};
    std::thread writer([&] {
        int i = 0;
        for (; pruning.load() || i < 200; ++i) push_at("during" + std::to_string(i), 200000 + i);
    });
    prune_feature_log(path, 50000, true, true, r);
    pruning.store(false);
    writer.join();
    w.flush();
    CHECK(r.removed == 12000);
    CHECK(w.failed() == 0);
    CHECK(w.written() == pushed);  // a push the full queue refused was pushed again (dropped() counts those)
    auto left = read_feature_log(path);
    CHECK(left.count("old0") == 0);
    CHECK(left.count("old11999") == 0);
    CHECK(left.count("new0") == 1);
    CHECK(left.size() == w.written() - 12000);
}

TEST_CASE("feature log: a deferred script is scanned by the writer exactly as on the submit path") {
    test::TempDir dir;
    std::string script = "#!/bin/bash\n#SBATCH -n 4\nset -e\nmodule load gcc\nsource activate env\nsrun ./a.out\n";
    while (script.size() < kScriptScanBytes + 5000) script += "mpirun ./step   # a long script: only the head is kept\n";
    JobRequest r;
    r.script = script;
    r.script_known = true;
    FeatureVector now, later;
    build_features(r, HistoryView{}, now, ScriptScan::Now);
    build_features(r, HistoryView{}, later, ScriptScan::Later);
    CHECK(std::isnan(later[F_script_bytes]));
    CHECK(now[F_script_bytes] == static_cast<float>(script.size()));

    {
        FeatureLogWriter w(dir.file("f.db"), 16, 2);
        FeatureLogEntry e;
        e.token = "deferred";
        e.x = later;
        e.script = w.defer(script);
        REQUIRE(e.script.pending());
        CHECK(w.heads_in_use() == 1);
        // Two blocks at most: the third head is refused, and the caller scans on the spot.
        DeferredScript second = w.defer(script), third = w.defer(script);
        CHECK(second.pending());
        CHECK_FALSE(third.pending());
        CHECK(w.heads_in_use() == 2);
        second = DeferredScript();  // released on the submit thread when not pushed
        CHECK(w.heads_in_use() == 1);
        DeferredScript moved;
        moved = std::move(e.script);  // moving hands the block over, once
        CHECK_FALSE(e.script.pending());
        CHECK(w.heads_in_use() == 1);
        e.script = std::move(moved);
        REQUIRE(w.push(std::move(e)));
        w.flush();
        CHECK(w.heads_in_use() == 0);  // returned once written
        CHECK(w.defer(script).pending());
    }
    auto log = read_feature_log(dir.file("f.db"));
    const FeatureVector &got = log.at("deferred").x;
    for (int f = F_script_bytes; f <= F_script_set_e; ++f) {
        INFO(feature_names()[static_cast<size_t>(f)]);
        CHECK(got[static_cast<size_t>(f)] == now[static_cast<size_t>(f)]);
    }
}

TEST_CASE("feature log: its thread is named, so top -H and perf tell it from slurmctld's") {
    test::TempDir dir;
    auto thread_names = [] {
        std::vector<std::string> names;
        DIR *d = opendir("/proc/self/task");
        REQUIRE(d);
        while (dirent *e = readdir(d)) {
            if (e->d_name[0] == '.') continue;
            std::ifstream f(std::string("/proc/self/task/") + e->d_name + "/comm");
            std::string n;
            std::getline(f, n);
            names.push_back(n);
        }
        closedir(d);
        return names;
    };
    auto count = [](const std::vector<std::string> &v, const std::string &n) { return std::count(v.begin(), v.end(), n); };
    auto before = count(thread_names(), "jfp-featurelog");
    {
        FeatureLogWriter w(dir.file("f.db"), 16);
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);  // until the thread has started
        while (count(thread_names(), "jfp-featurelog") == before && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        CHECK(count(thread_names(), "jfp-featurelog") == before + 1);
    }
    // join() returns once the thread has ended; the kernel drops its /proc/self/task entry a moment later.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (count(thread_names(), "jfp-featurelog") != before && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    CHECK(count(thread_names(), "jfp-featurelog") == before);
}

}  // namespace test_feature_log_writer
