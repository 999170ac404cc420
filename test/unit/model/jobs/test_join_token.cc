#include <set>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "catch.h"
#include "model/jobs/join_token.h"

namespace test_join_token {

using jfp::JoinToken;

TEST_CASE("join token: hex() writes 16 lowercase hex digits of the number, most significant first") {
    CHECK(JoinToken::hex(0).view() == "0000000000000000");
    CHECK(JoinToken::hex(0x0123456789abcdefull).view() == "0123456789abcdef");
    CHECK(JoinToken::hex(~0ull).str() == "ffffffffffffffff");
    CHECK(std::string(JoinToken::hex(255).c_str()) == "00000000000000ff");  // NUL-terminated for C callers
}

TEST_CASE("join token: text of any length up to the limit round-trips; longer is refused, not cut") {
    CHECK(JoinToken().empty());
    CHECK(JoinToken("").empty());
    CHECK(JoinToken(std::string_view()).empty());  // null data, zero length
    CHECK(JoinToken(static_cast<const char *>(nullptr)).empty());
    std::string max(JoinToken::kMaxLength, 'z');
    CHECK(JoinToken(max).view() == max);
    CHECK(JoinToken::fits(max));
    CHECK_FALSE(JoinToken::fits(max + "z"));
    CHECK_THROWS_AS(JoinToken(max + "z"), std::length_error);
    JoinToken t("tok7");
    CHECK(t.size() == 4);
    CHECK(t.str() == "tok7");
}

TEST_CASE("join token: equality and hash follow the text, so map keys behave as the strings did") {
    CHECK(JoinToken("abc") == JoinToken(std::string("abc")));
    CHECK(JoinToken("abc") != JoinToken("abd"));
    CHECK(JoinToken("ab") != JoinToken("abc"));
    std::unordered_set<JoinToken, JoinToken::Hash> set;
    std::set<std::string> distinct;
    for (uint64_t i = 0; i < 1000; ++i) {
        set.insert(JoinToken::hex(i * 0x9e3779b97f4a7c15ull));
        distinct.insert(JoinToken::hex(i * 0x9e3779b97f4a7c15ull).str());
    }
    CHECK(set.size() == distinct.size());
    CHECK(set.count(JoinToken::hex(3 * 0x9e3779b97f4a7c15ull)) == 1);
    CHECK(set.count(JoinToken("not-there")) == 0);
}

}  // namespace test_join_token
