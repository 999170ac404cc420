#include <algorithm>

#include "catch.h"
#include "model/store/queue_tokens.h"
#include "model/store/store_schema.h"
#include "test_support.h"

namespace test_queue_tokens {

using namespace jfp;

TEST_CASE("queue tokens: saving replaces what the store held; loading gives them back") {
    test::TempDir dir;
    OpenedStore s = open_store_db(dir.file("h.db"), true);
    CHECK(load_queue_tokens(s.db).empty());
    save_queue_tokens(s.db, {{"1", "tA"}, {"2", "tB"}});
    auto q = load_queue_tokens(s.db);
    std::sort(q.begin(), q.end());
    REQUIRE(q.size() == 2);
    CHECK(q[0] == std::make_pair(std::string("1"), std::string("tA")));
    CHECK(q[1] == std::make_pair(std::string("2"), std::string("tB")));
    save_queue_tokens(s.db, {{"3", "tC"}, {"3", "tD"}});  // job 1 and 2 left the queue; the later pair wins
    q = load_queue_tokens(s.db);
    REQUIRE(q.size() == 1);
    CHECK(q[0] == std::make_pair(std::string("3"), std::string("tD")));
    save_queue_tokens(s.db, {});
    CHECK(load_queue_tokens(s.db).empty());
}

}  // namespace test_queue_tokens
