// A job name's identity (model/history/name_identity.h): the ways a user can write one name are one name
// to the history, by Unicode's rules (ICU), and the ASCII table agrees with ICU itself.
#include <random>
#include <string>

#include "catch.h"
#include "model/history/history.h"
#include "model/history/name_identity.h"
#include "test_support.h"

namespace test_name_identity {

using namespace jfp;

TEST_CASE("name identity: case, blanks, invisible and bidi characters, look-alike letters, a version mark") {
    const NameIdentity base = name_identity("wrf_run_17");
    for (const char *same : {"WRF_RUN_17", "Wrf_Run_17", "wrf_run_17 ", "wrf_run_17\t", " wrf_run_17", "wrf_run\u200b_17",
                             "wrf\u2066_run_17", "\u202ewrf_run_17", "wrf_r\u057dn_17" /* Armenian se */,
                             "\uff57\uff52\uff46_run_17" /* full-width */, "wrf_ru\u0301n_17" /* a combining acute */,
                             "wrf_run\u0323_17" /* a dot below */, "wr\u0303\u0308f_run_17" /* two stacked */}) {
        INFO(same);
        CHECK(name_identity(same).name == base.name);
        CHECK(name_identity(same).series == base.series);
    }
    // The series: the run number, and a version mark before it, do not make another series.
    for (const char *series : {"wrf_run_18", "wrf_run", "wrf_run_v2", "WRF_RUN-V3.1", "wrf_run.7"}) {
        INFO(series);
        CHECK(name_identity(series).series == base.series);
    }
    // A letter for a digit: the name is the same (TR39: '1' and 'l' are confusable); the series is cut at the
    // number, and "l7" has none, so that one is its own series (a limit: docs/testing.md).
    CHECK(name_identity("wrf_run_l7").name == base.name);
    CHECK(name_identity("wrf_run_18").name != base.name);
    CHECK(name_identity("wrf_ran_17").name != base.name);
    // Digits stay apart from each other: "10" and "17" are two runs, not one.
    CHECK(name_identity("job10").name != name_identity("job17").name);
    CHECK(name_identity("dev").series == name_identity("dev").name);  // a name ending in v is not a version mark
}

TEST_CASE("name identity: the ASCII table is ICU's own, on random ASCII names") {
    std::mt19937_64 rng(test::property_seed());
    for (int i = 0; i < 20000; ++i) {
        std::string s;
        size_t n = rng() % 24;
        for (size_t k = 0; k < n; ++k) s += static_cast<char>(rng() % 128);
        INFO("name bytes: " << s.size());
        NameIdentity fast = name_identity(s), ref = name_identity_icu(s);
        CHECK(fast.name == ref.name);
        CHECK(fast.series == ref.series);
    }
}

TEST_CASE("name identity: the skeleton is given at most 256 characters, however many a name folds to") {
    std::string fdfa;  // U+FDFA: 18 characters under NFKC, 15 of them kept (3 blanks); 20 of them keep 300
    for (int i = 0; i < 20; ++i) fdfa += "\xEF\xB7\xBA";
    CHECK(name_identity(fdfa + "x").name == name_identity(fdfa + "y").name);
    // 17 keep 255: the next character still counts.
    CHECK(name_identity(fdfa.substr(0, 3 * 17) + "x").name != name_identity(fdfa.substr(0, 3 * 17) + "y").name);
}

TEST_CASE("name identity: bounded work and total on any bytes") {
    std::mt19937_64 rng(test::property_seed() + 1);
    for (int i = 0; i < 2000; ++i) {
        std::string s(rng() % 2048, '\0');
        for (auto &c : s) c = static_cast<char>(rng() % 256);
        NameIdentity id = name_identity(s);
        // The first 256 bytes decide: what follows them changes nothing.
        if (s.size() >= kNameIdentityBytes) CHECK(name_identity(s + "tail").name == id.name);
        if (s.size() >= 300) CHECK(name_identity(s.substr(0, 300) + "other").name == id.name);
    }
}

TEST_CASE("history: a name written another way finds the same runs; another name does not") {
    HistoryIndex idx;
    JobRecord j;
    j.user = "amy";
    j.name = "wrf_run";
    j.outcome = Outcome::Failed;
    j.submit = 1000;
    j.end = 2000;
    idx.add(j);
    JobRequest r;
    r.user = "amy";
    for (const char *same : {"WRF_RUN", "wrf_run\t", "wrf\u200b_run", "wrf_r\u057dn"}) {
        r.name = same;
        INFO(same);
        REQUIRE(idx.lookup(r).user_name);
        CHECK(idx.lookup(r).user_name->n_fail == 1);
    }
    r.name = "other";
    CHECK(idx.lookup(r).user_name == nullptr);
}

}  // namespace test_name_identity
