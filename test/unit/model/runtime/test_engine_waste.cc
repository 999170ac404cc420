// decide_by = waste in the engine: jobs priced by slurm.conf as slurmctld bills them, the decision and the
// words from the same figures, and the log lines an admin reads.
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "catch.h"
#include "engine_site.h"
#include "model/runtime/engine.h"
#include "model/util/log.h"

namespace test_engine_waste {

using namespace jfp;
using namespace jfp::test;

namespace {
std::vector<std::string> &logged() {
    static std::vector<std::string> lines;
    return lines;
}
bool said(const std::string &what) {
    for (const auto &l : logged())
        if (l.find(what) != std::string::npos) return true;
    return false;
}
SubmitRequest sized(const char *partition, double cpus, double minutes) {
    SubmitRequest q = request("sim");
    q.partition = partition;
    q.min_cpus = cpus;
    q.time_limit_min = minutes;
    return q;
}
}  // namespace

TEST_CASE("engine, decide_by = waste: priced by slurm.conf, refused over the budget, warned when cheap, said in the log") {
    Site site;
    write_file(site.slurm_conf,
               "PartitionName=batch Default=YES DefaultTime=60\nDefMemPerCPU=1000\n"
               "PartitionName=billed DefaultTime=60 TRESBillingWeights=CPU=2.0\n"
               "PartitionName=broken DefaultTime=60 TRESBillingWeights=CPU=lots\n");
    site.config("mode = reject\nmin_history = 0\nthreshold = 0\ndecide_by = waste\nwaste_budget = 10\n"
                "waste_budget.partition.billed = 0.001\n");
    logged().clear();
    set_log_sink([](LogLevel, const char *m) { logged().emplace_back(m); });
    Engine e(site.options());
    set_log_sink(nullptr);
    REQUIRE(e.mode() == Mode::Reject);
    CHECK(said("deciding by waste: jobs whose expected waste reaches 10 billing-hours"));
    CHECK(said("slurm.conf: partition broken: TRESBillingWeights: the weight of 'cpu' is not a number; jfp prices that "
               "partition's jobs by CPU"));

    // One CPU for an hour: 1 core-hour, under the budget whatever p: warned (threshold 0), not refused.
    auto cheap = e.evaluate(sized("batch", 1, 60));
    REQUIRE(cheap.decision.by_waste);
    CHECK(cheap.decision.cost == Approx(1));
    CHECK(std::string(cheap.decision.unit) == "core-hours");
    CHECK(cheap.decision.cheap);
    CHECK(cheap.decision.action == Action::Warn);
    CHECK(cheap.user_message.find("It asks for 1 core-hours, so a failure would waste little: it is not refused.") !=
          std::string::npos);

    // 64 CPUs for a day on the billed partition: 2 x 64 x 24 = 3,072 billing-hours.
    auto big = e.evaluate(sized("billed", 64, 24 * 60));
    REQUIRE(big.decision.by_waste);
    CHECK(big.decision.cost == Approx(3072));
    CHECK(std::string(big.decision.unit) == "billing-hours");
    const double ew = static_cast<double>(big.decision.p_fail) * 3072;
    CHECK(big.decision.expected_waste == Approx(ew));
    // The partition's budget, 0.001: any p the model gives refuses it.
    REQUIRE(ew >= 0.001);
    CHECK(big.decision.budget == Approx(0.001));
    CHECK(big.decision.over_budget);
    REQUIRE(big.decision.action == Action::Reject);
    CHECK(big.reject);
    CHECK(big.user_message.find("it asks for 3,072 billing-hours and jfp puts its chance of failing at") != std::string::npos);
    CHECK(big.user_message.find(": an expected ") != std::string::npos);
    CHECK(big.user_message.find(" billing-hours lost, at or over the budget of ") != std::string::npos);

    // The partition Slurm would refuse the weights of: priced by CPU.
    auto broken = e.evaluate(sized("broken", 4, 60));
    CHECK(broken.decision.cost == Approx(4));
    CHECK(std::string(broken.decision.unit) == "core-hours");

    // UNLIMITED: no bounded cost, judged by the threshold alone (0 here), never cheap; refused unless the
    // model missed its target precision, which guards a refusal by p (not one by cost).
    auto unlimited = e.evaluate(sized("batch", 1, INFINITY));
    CHECK(unlimited.decision.cost_unbounded);
    CHECK_FALSE(unlimited.decision.cheap);
    std::ifstream in(site.model);
    const bool below = !nlohmann::json::parse(in)["threshold_choice"]["target_reached"].get<bool>();
    CHECK(unlimited.decision.action == (below ? Action::Warn : Action::Reject));
    CHECK(unlimited.decision.below_target == below);
}

TEST_CASE("engine, decide_by = waste without a budget: judged by probability, and the log says so once") {
    Site site;
    std::ifstream in(site.model);
    nlohmann::json b = nlohmann::json::parse(in);
    b.erase("waste_choice");  // a bundle that records no budget (an older jfp's, or a window too short)
    write_file(site.model, b.dump());
    site.config("mode = reject\nmin_history = 0\nthreshold = 0\ndecide_by = waste\nreject_below_target = yes\n");
    logged().clear();
    set_log_sink([](LogLevel, const char *m) { logged().emplace_back(m); });
    Engine e(site.options());
    auto out = e.evaluate(sized("batch", 1, 60));
    e.poll();
    set_log_sink(nullptr);
    CHECK_FALSE(out.decision.by_waste);
    CHECK(out.decision.action == Action::Reject);  // p >= 0: the probability policy refuses
    size_t lines = 0;
    for (const auto &l : logged()) lines += l.find("records none (jfp train says why): every job is judged by probability") !=
                                            std::string::npos;
    CHECK(lines == 1);
}

}  // namespace test_engine_waste
