// UserNames: the submit path never asks the password database; the background thread does, once per uid.
#include <unistd.h>

#include "catch.h"
#include "model/reload/user_names.h"

namespace test_user_names {

using namespace jfp;

TEST_CASE("user names: unknown at first and queued, then the password database's after the background look") {
    UserNames names;
    bool queued = false;
    CHECK(names.name(0, queued) == "uid:0");
    CHECK(queued);
    const auto root = passwd_name(0);
    REQUIRE(root);
    names.resolve_queued();
    queued = false;
    CHECK(names.name(0, queued) == *root);
    CHECK_FALSE(queued);
    // A uid the database lacks keeps its number, and is not asked again.
    const uint32_t nobody_knows = 3999999999u;
    REQUIRE_FALSE(passwd_name(nobody_knows));
    names.name(nobody_knows, queued);
    names.resolve_queued();
    queued = false;
    CHECK(names.name(nobody_knows, queued) == "uid:3999999999");
    CHECK_FALSE(queued);
    CHECK(passwd_uid(*root) == std::optional<uint32_t>(0));
    CHECK_FALSE(passwd_uid("no-such-user-jfp-test"));
}

}  // namespace test_user_names
