#include <algorithm>
#include <bitset>
#include <string>
#include <vector>

#include "catch.h"
#include "model/jobs/token_issuer.h"

namespace test_token_issuer {

using jfp::TokenIssuer;

TEST_CASE("token issuer: the first 4M counters of a process permute to distinct values (the tokens of one second never meet)") {
    TokenIssuer t;
    std::vector<uint32_t> v(uint32_t{1} << 22);
    for (uint32_t i = 0; i < v.size(); ++i) v[i] = t.permute(i);
    std::sort(v.begin(), v.end());
    CHECK(std::adjacent_find(v.begin(), v.end()) == v.end());
    // The top of the counter's range too: a bijection, not only the low counters spread out.
    std::vector<uint32_t> hi;
    for (uint32_t i = 0; i < 100000; ++i) hi.push_back(t.permute(0xffffffffu - i));
    std::sort(hi.begin(), hi.end());
    CHECK(std::adjacent_find(hi.begin(), hi.end()) == hi.end());
}

TEST_CASE("token issuer: a token is the second's 8 hex digits, then 8; tokens ascend with the second") {
    TokenIssuer t;
    const uint64_t s = 1796000000;  // 2026-11-30
    std::vector<std::string> first, second;
    for (int i = 0; i < 2000; ++i) first.push_back(t.issue_at(s).str());
    for (int i = 0; i < 2000; ++i) second.push_back(t.issue_at(s + 1).str());
    for (const auto &tok : first) {
        REQUIRE(tok.size() == 16);
        CHECK(tok.substr(0, 8) == "6b0cc900");
        CHECK(tok.find_first_not_of("0123456789abcdef") == std::string::npos);
    }
    // Every token of a later second sorts after every token of an earlier one: the log's key appends.
    CHECK(*std::max_element(first.begin(), first.end()) < *std::min_element(second.begin(), second.end()));
    std::sort(first.begin(), first.end());
    CHECK(std::adjacent_find(first.begin(), first.end()) == first.end());
    // The clock's second, when none is given.
    const std::string now = t.issue().str();
    CHECK(std::stoull(now.substr(0, 8), nullptr, 16) + 2 >= static_cast<uint64_t>(time(nullptr)));
    CHECK(std::stoull(now.substr(0, 8), nullptr, 16) <= static_cast<uint64_t>(time(nullptr)));
}

TEST_CASE("token issuer: the counter's part is not the counter, and two processes' keys differ") {
    TokenIssuer a, b;
    int same = 0, step_one = 0;
    std::vector<int> ones(32, 0);
    uint32_t last = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
        const uint32_t pa = static_cast<uint32_t>(std::stoull(a.issue_at(1).str().substr(8), nullptr, 16));
        const uint32_t pb = static_cast<uint32_t>(std::stoull(b.issue_at(1).str().substr(8), nullptr, 16));
        same += pa == pb;
        if (i > 0) step_one += pa == last + 1;
        last = pa;
        for (int bit = 0; bit < 32; ++bit) ones[bit] += (pa >> bit) & 1;
    }
    CHECK(same <= 2);      // 2^-32 a pair: three of 20,000 pairs meet about once in 10^17 runs
    CHECK(step_one <= 2);  // the next token is not the last plus one
    for (int bit = 0; bit < 32; ++bit) {
        INFO("bit " << bit);
        CHECK(ones[bit] > n * 45 / 100);  // each bit set about half the time (±5 %, > 14 sigma)
        CHECK(ones[bit] < n * 55 / 100);
    }
}

}  // namespace test_token_issuer
