// One jfp publish at a time (tools/publish/publish_lock.h): a second publisher waits, says so once, and
// goes on only when the first lets go.
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

#include "catch.h"
#include "test_support.h"
#include "tools/publish/publish_lock.h"

namespace test_publish_lock {

using namespace jfp;

TEST_CASE("publish lock: a second publisher waits for the first, and is told it waits") {
    test::TempDir dir;
    const std::string target = dir.file("model.json");
    int first_waits = 0;
    auto first = std::make_unique<PublishLock>(target, [&] { ++first_waits; });
    CHECK(first_waits == 0);
    struct stat st {};
    REQUIRE(::stat((target + ".lock").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0644);

    std::atomic<int> second_waits{0};
    std::atomic<bool> second_holds{false};
    std::thread second([&] {
        PublishLock lock(target, [&] { ++second_waits; });
        second_holds = true;
    });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (second_waits == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    CHECK(second_waits == 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK_FALSE(second_holds);  // still waiting while the first holds it
    first.reset();
    second.join();
    CHECK(second_holds);
    CHECK(second_waits == 1);

    PublishLock again(target, [&] { ++first_waits; });  // both let go: no wait
    CHECK(first_waits == 0);
}

TEST_CASE("publish lock: a lock file that cannot be made is an error naming it") {
    test::TempDir dir;
    CHECK_THROWS_WITH(PublishLock(dir.file("no/such/dir/model.json"), nullptr),
                      HasText("cannot open " + dir.file("no/such/dir/model.json.lock")));
}

}  // namespace test_publish_lock
