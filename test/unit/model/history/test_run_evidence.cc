// Runs that count (history_stats.h): the evidence the model reads cannot be diluted by cheap runs, an array
// is one run, and one user's jobs in a row are one run of a partition's or account's shared window.
#include <cmath>
#include <random>
#include <string>

#include "catch.h"
#include "model/history/history.h"

namespace test_run_evidence {

using namespace jfp;

namespace {

JobRecord ended(const std::string &user, const std::string &name, Outcome o, double elapsed_s, double cpus,
                int64_t end, const std::string &array = "", const std::string &partition = "batch") {
    JobRecord j;
    j.cluster = "c";
    j.job_key = std::to_string(end) + user + name + array;
    j.user = user;
    j.name = name;
    j.account = "acct";
    j.partition = partition;
    j.array_job = array;
    j.outcome = o;
    j.submit = end - 10;
    j.end = end;
    j.elapsed_s = elapsed_s;
    j.req_cpus = cpus;
    return j;
}

JobRequest request(const std::string &user, const std::string &name, const std::string &partition = "batch") {
    JobRequest r;
    r.user = user;
    r.name = name;
    r.partition = partition;
    r.account = "acct";
    return r;
}

}  // namespace

TEST_CASE("run evidence: twenty tasks that exit at once do not launder ten costly failures") {
    HistoryIndex index;
    int64_t t = 1000;
    for (int i = 0; i < 10; ++i) index.add(ended("eve", "sim_017", Outcome::Failed, 3600, 16, t += 100));
    const auto before = index.lookup(request("eve", "sim_017")).user_stem->runs();
    // The attack: one array of 20 tasks under a name of the same series, each done in a second.
    for (int i = 0; i < 20; ++i) index.add(ended("eve", "sim_018", Outcome::Completed, 1, 1, t += 1, "555"));
    const HistoryStats &stem = *index.lookup(request("eve", "sim_017")).user_stem;
    // The job counts see ten failures and then twenty completions; the runs see one cheap completed run.
    CHECK(stem.streak == 0);
    CHECK(stem.recent_fail_rate() == 0.0);
    const auto after = stem.runs();
    CHECK(before.recent_fail_rate == 1.0);
    CHECK(after.recent_fail_rate > 0.99);
    CHECK(after.fail_rate > 0.99);
    CHECK(after.streak > 9.8);
    // A completed run as costly as the failures does count.
    index.add(ended("eve", "sim_019", Outcome::Completed, 3600, 16, t += 3600));
    const auto real = index.lookup(request("eve", "sim_017")).user_stem->runs();
    CHECK(real.streak == 0);
    CHECK(real.recent_fail_rate < after.recent_fail_rate - 0.05);
}

TEST_CASE("run evidence: an array is one run, however many tasks it has") {
    HistoryIndex one, many;
    int64_t t = 1000;
    for (int i = 0; i < 1000; ++i) many.add(ended("ann", "job", Outcome::Failed, 600, 1, t + i, "77"));
    one.add(ended("ann", "job", Outcome::Failed, 600, 1, t));
    const HistoryStats &m = *many.lookup(request("ann", "job")).user_name, &o = *one.lookup(request("ann", "job")).user_name;
    CHECK(m.n == 1000);  // the counts still count jobs
    CHECK(m.runs().streak == o.runs().streak);
    // Half its tasks failed: the run failed, and weighs half a failure.
    HistoryIndex half;
    for (int i = 0; i < 10; ++i) half.add(ended("ann", "job", i % 2 ? Outcome::Failed : Outcome::Completed, 600, 1, t + i, "78"));
    const auto h = half.lookup(request("ann", "job")).user_name->runs();
    CHECK(h.streak == 1);
    CHECK(h.fail_rate == Approx(0.5));
    // Two arrays in a row are two runs.
    half.add(ended("ann", "job", Outcome::Failed, 600, 1, t + 20, "79"));
    CHECK(half.lookup(request("ann", "job")).user_name->runs().streak == 2);
}

TEST_CASE("run evidence: one user's burst is one run of the partition's shared window") {
    HistoryIndex index;
    int64_t t = 1000;
    // Forty users' completed runs, then one user's twenty failed jobs in a row.
    for (int u = 0; u < 40; ++u) index.add(ended("user" + std::to_string(u), "a", Outcome::Completed, 3600, 4, t += 10));
    const double quiet = index.lookup(request("bob", "x")).partition->runs().recent_fail_rate;
    for (int i = 0; i < 20; ++i) index.add(ended("mallory", "m" + std::to_string(i), Outcome::Failed, 5, 1, t += 1));
    const HistoryStats &p = *index.lookup(request("bob", "x")).partition;
    CHECK(quiet == 0.0);
    CHECK(p.recent_fail_rate() == 1.0);  // by jobs, the last ten all failed
    const double burst = p.runs().recent_fail_rate;
    CHECK(burst < 0.2);
    // Another user's failure is a run of its own.
    index.add(ended("carol", "c", Outcome::Failed, 3600, 4, t += 1));
    CHECK(index.lookup(request("bob", "x")).partition->runs().recent_fail_rate > burst + 0.05);
}

// Property: whatever came before, a history whose latest run failed, using a core-hour or more, keeps at least
// 60% of its failure rate, recent failure rate and streak after any fifty completions of a second or less.
TEST_CASE("run evidence: cheap completions cannot dilute a failure (property)") {
    std::mt19937_64 rng(48);
    const Outcome kinds[] = {Outcome::Completed, Outcome::Failed, Outcome::Timeout, Outcome::OutOfMemory,
                             Outcome::Cancelled};
    for (int round = 0; round < 300; ++round) {
        HistoryIndex index;
        int64_t t = 1000;
        const int prior = static_cast<int>(rng() % 40);
        for (int i = 0; i < prior; ++i) {
            const std::string array = rng() % 3 == 0 ? std::to_string(rng() % 4) : "";
            index.add(ended("u", "n", kinds[rng() % 5], static_cast<double>(rng() % 100000), 1 + static_cast<double>(rng() % 64),
                            t += 1 + static_cast<int64_t>(rng() % 100), array));
        }
        index.add(ended("u", "n", Outcome::Failed, 3600 + static_cast<double>(rng() % 100000), 1 + static_cast<double>(rng() % 64), t += 5));
        const auto before = index.lookup(request("u", "n")).user_name->runs();
        const int cheap = 1 + static_cast<int>(rng() % 50);
        for (int i = 0; i < cheap; ++i) {
            const std::string array = rng() % 2 ? "cheap" + std::to_string(rng() % 3) : "";
            index.add(ended("u", "n", Outcome::Completed, rng() % 2, 1, t += 1, array));  // 0 or 1 s, one CPU
        }
        const auto after = index.lookup(request("u", "n")).user_name->runs();
        INFO("round " << round << ": " << prior << " prior jobs, " << cheap << " cheap completions");
        CHECK(after.fail_rate >= 0.6 * before.fail_rate);
        CHECK(after.recent_fail_rate >= 0.6 * before.recent_fail_rate);
        CHECK(after.streak >= 0.6 * before.streak);
        CHECK(before.streak >= 1);
    }
}

TEST_CASE("run evidence: an application whose failed and completed runs all take a second recovers") {
    HistoryIndex index;
    int64_t t = 1000;
    for (int i = 0; i < 6; ++i) index.add(ended("bob", "tiny", Outcome::Failed, 0, 1, t += 10));
    for (int i = 0; i < 6; ++i) index.add(ended("bob", "tiny", Outcome::Completed, i % 2, 1, t += 10));
    const auto e = index.lookup(request("bob", "tiny")).user_name->runs();
    CHECK(e.streak < 0.5);
    CHECK(e.recent_fail_rate < 0.5);
}

}  // namespace test_run_evidence
