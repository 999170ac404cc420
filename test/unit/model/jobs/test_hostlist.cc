#include <random>
#include <string>
#include <vector>

#include "model/jobs/hostlist.h"
#include "catch.h"

namespace test_hostlist {

using namespace jfp;

namespace {
std::vector<std::string> hosts(const std::string &e, size_t cap = 1000) {
    std::vector<std::string> out;
    if (!expand_hostlist(e, cap, out)) out.insert(out.begin(), "<malformed>");
    return out;
}
}  // namespace

TEST_CASE("hostlist: Slurm's expressions expand in Slurm's order") {
    CHECK(hosts("n1") == std::vector<std::string>{"n1"});
    CHECK(hosts("node[01-03],gpu7") == std::vector<std::string>{"node01", "node02", "node03", "gpu7"});
    CHECK(hosts("n[8-10,3]") == std::vector<std::string>{"n8", "n9", "n10", "n3"});
    CHECK(hosts("r[1-2]n[1-2]") == std::vector<std::string>{"r1n1", "r1n2", "r2n1", "r2n2"});
    CHECK(hosts("a[1-2]-ib") == std::vector<std::string>{"a1-ib", "a2-ib"});
    CHECK(hosts(" n1 , n2 ") == std::vector<std::string>{"n1", "n2"});
    CHECK(hosts("").empty());
}

TEST_CASE("hostlist: malformed or oversized expressions are refused, never expanded past the cap") {
    for (const char *bad : {"n[1-", "n[3-1]", "n[a-b]", "n]1[", "n[[1]]", "n[1,,2]", "n[-2]", "n[1234567890-1234567891]"})
        CHECK(hosts(bad).front() == "<malformed>");
    CHECK(hosts("n[1-100]", 50).front() == "<malformed>");
    CHECK(hosts("n[1-10][1-10]", 99).front() == "<malformed>");
    CHECK(hosts("n[1-10][1-10]", 100).size() == 100);
    // Random bytes: whatever comes back is within the cap, and the call returns.
    std::mt19937 rng(7);
    const std::string alphabet = "n[]-,0123456789 ";
    for (int i = 0; i < 20000; ++i) {
        std::string e;
        size_t len = rng() % 24;
        for (size_t k = 0; k < len; ++k) e += alphabet[rng() % alphabet.size()];
        std::vector<std::string> out;
        expand_hostlist(e, 64, out);
        REQUIRE(out.size() <= 64);
    }
}

}  // namespace test_hostlist
