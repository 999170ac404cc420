// A write transaction's charges to the users' daily budget: kept when it commits, given back when it
// does not, whichever way it ends.
#include "catch.h"

#include <stdexcept>

#include "model/archive/user_write_budget.h"

namespace test_batch_charges {

using namespace jfp;
using File = UserWriteBudget::File;

TEST_CASE("batch charges: kept when committed, given back on an exception or an early return") {
    UserWriteBudget budget(1000);
    const int64_t day = 20000;
    REQUIRE(budget.admit(File::FeatureLog, 7, day));
    {
        BatchCharges c(&budget, File::FeatureLog, "feature log");
        c.charge(7, "amy", day, 300);
        c.committed();
    }
    CHECK(budget.spent(7) == 300);
    CHECK_THROWS_AS(([&] {
                        BatchCharges c(&budget, File::ScriptArchive, "script archive");
                        c.charge(7, "amy", day, 200);
                        c.charge(7, "amy", day, 100);
                        throw std::runtime_error("the batch rolled back");
                    }()),
                    std::runtime_error);
    CHECK(budget.spent(7) == 300);
    {
        BatchCharges c(&budget, File::ScriptArchive, "script archive");
        c.charge(7, "amy", day, 800);  // spends the day (logged once)
        CHECK_FALSE(budget.admit(File::FeatureLog, 7, day));
    }
    // Given back: the day is open again.
    CHECK(budget.spent(7) == 300);
    CHECK(budget.admit(File::FeatureLog, 7, day));
    CHECK(budget.users_over_on(day) == 0);
}

TEST_CASE("batch charges: no budget, nothing charged") {
    BatchCharges c(nullptr, File::FeatureLog, "feature log");
    c.charge(7, "amy", 20000, 300);
}

}  // namespace test_batch_charges
