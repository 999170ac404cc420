// Runs that count (history_stats.h): the evidence the model reads cannot be diluted by cheap runs, an array
// is one run, and a partition's or account's rates are its users', one user one share.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "catch.h"
#include "model/history/history.h"
#include "model/scoring/features.h"

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

TEST_CASE("run evidence: a partition's rates are its users', one user one share") {
    HistoryIndex burst, spread;
    int64_t t = 1000;
    // Forty users' completed runs; then one user's twenty failed jobs, in a row or each between two other
    // users' completions.
    for (int u = 0; u < 40; ++u) {
        burst.add(ended("user" + std::to_string(u), "a", Outcome::Completed, 3600, 4, t += 10));
        spread.add(ended("user" + std::to_string(u), "a", Outcome::Completed, 3600, 4, t));
    }
    const HistoryStats::RunEvidence quiet = burst.lookup(request("bob", "x")).partition->runs();
    CHECK(quiet.recent_fail_rate == 0.0);
    CHECK(quiet.fail_rate == 0.0);
    for (int i = 0; i < 20; ++i) {
        burst.add(ended("mallory", "m" + std::to_string(i), Outcome::Failed, 5, 1, t += 1));
        spread.add(ended("mallory", "m" + std::to_string(i), Outcome::Failed, 5, 1, t += 1));
        spread.add(ended("user" + std::to_string(i), "a", Outcome::Completed, 3600, 4, t += 1));
    }
    for (HistoryIndex *ix : {&burst, &spread}) {
        const HistoryStats::RunEvidence p = ix->lookup(request("bob", "x")).partition->runs();
        CHECK(p.recent_fail_rate == Approx(1.0 / PoolUsers::kUsers));  // one of the latest 16 users
        CHECK(p.fail_rate == Approx(1.0 / 41));                        // one of 41 users
        const HistoryStats::RunEvidence a = ix->lookup(request("bob", "x")).account->runs();
        CHECK(a.recent_fail_rate == Approx(p.recent_fail_rate));
    }
    // Another user's failure is a share of its own.
    burst.add(ended("carol", "c", Outcome::Failed, 3600, 4, t += 1));
    CHECK(burst.lookup(request("bob", "x")).partition->runs().recent_fail_rate == Approx(2.0 / PoolUsers::kUsers));
    // The job counts a message quotes stay counts of jobs: the last ten labeled jobs were carol's and nine of
    // mallory's failures.
    CHECK(burst.lookup(request("bob", "x")).partition->recent_fail_rate() == 1.0);
    // Under kMinPoolUsers users a pooled key says nothing to the model.
    HistoryIndex few;
    few.add(ended("ann", "a", Outcome::Failed, 60, 1, 10));
    few.add(ended("ben", "b", Outcome::Failed, 60, 1, 20));
    const JobRequest bob = request("bob", "x");
    FeatureVector x;
    build_features(bob, few.lookup(bob), x);
    CHECK(std::isnan(x[F_p_recent_fail_rate]));
    CHECK(std::isnan(x[F_a_fail_rate]));
    few.add(ended("cat", "c", Outcome::Completed, 60, 1, 30));
    build_features(bob, few.lookup(bob), x);
    CHECK(x[F_p_recent_fail_rate] == Approx(2.0 / 3));
    CHECK(x[F_a_fail_rate] == Approx(2.0 / 3));
}

// Property: over random histories of many users, one more user's jobs (any number, any outcomes, anywhere
// among the others') move a partition's recent rate by at most one ring share (1/16) and its rate over all
// users by at most 1/(users + 1).
TEST_CASE("run evidence: no one user moves a partition's rates by more than one user's share (property)") {
    std::mt19937_64 rng(148);
    auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
    const Outcome kinds[] = {Outcome::Completed, Outcome::Failed, Outcome::Timeout, Outcome::OutOfMemory, Outcome::Cancelled};
    for (int round = 0; round < 300; ++round) {
        std::vector<JobRecord> others;
        const size_t users = 20 + pick(40);
        int64_t t = 1000;
        for (size_t i = 0, n = 100 + pick(400); i < n; ++i)
            others.push_back(ended("u" + std::to_string(pick(users)), "job" + std::to_string(pick(3)), kinds[pick(5)],
                                   static_cast<double>(1 + pick(7200)), static_cast<double>(1 + pick(32)), t += 1 + pick(50)));
        HistoryIndex without, with;
        for (const JobRecord &j : others) without.add(j);
        // The same jobs with mallory's among them, her jobs ending between the others' (their order kept).
        const size_t hers = 1 + pick(200);
        std::vector<size_t> at(hers);
        for (size_t &a : at) a = pick(others.size() + 1);
        std::sort(at.begin(), at.end());
        size_t k = 0;
        for (size_t i = 0; i <= others.size(); ++i) {
            while (k < hers && at[k] == i) {
                JobRecord m = ended("mallory", "m" + std::to_string(pick(1000)), kinds[pick(2)], static_cast<double>(pick(10)), 1,
                                    i < others.size() ? others[i].end : t + 1, pick(4) ? "" : std::to_string(pick(5)));
                with.add(m);
                ++k;
            }
            if (i < others.size()) with.add(others[i]);
        }
        const HistoryStats *p0 = without.lookup(request("bob", "x")).partition, *p1 = with.lookup(request("bob", "x")).partition;
        REQUIRE(p0 != nullptr);
        REQUIRE(p1 != nullptr);
        const HistoryStats::RunEvidence e0 = p0->runs(), e1 = p1->runs();
        INFO("round " << round << ": " << users << " users, mallory's " << hers << " jobs; recent " << e0.recent_fail_rate
                      << " -> " << e1.recent_fail_rate << ", all " << e0.fail_rate << " -> " << e1.fail_rate);
        REQUIRE(p0->w_all >= kMinPoolUsers);
        // A full ring: she takes one user's place; a ring not yet full: she is one more.
        const double share = 1.0 / std::min<double>(p0->r_all + 1, PoolUsers::kUsers);
        CHECK(std::fabs(e1.recent_fail_rate - e0.recent_fail_rate) <= share + 1e-5);
        CHECK(std::fabs(e1.fail_rate - e0.fail_rate) <= 1.0 / (p0->w_all + 1) + 1e-5);
    }
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
