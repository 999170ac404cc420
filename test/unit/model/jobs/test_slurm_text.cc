#include <cmath>

#include <random>
#include <algorithm>
#include <cstdlib>
#include <vector>
#include "catch.h"
#include "test_support.h"
#include "model/jobs/outcome.h"
#include "model/jobs/slurm_text.h"
#include "model/util/time_util.h"

namespace test_slurm_text {

using namespace jfp;

TEST_CASE("ReqMem: pre-21.08 per-CPU and per-node forms, and the newer total form") {
    auto c = parse_req_mem("4000Mc");
    REQUIRE(c);
    CHECK(c->per == MemRequest::Per::Cpu);
    CHECK(c->total_mb(4, 1) == Approx(16000));
    auto n = parse_req_mem("48000Mn");
    REQUIRE(n);
    CHECK(n->per == MemRequest::Per::Node);
    CHECK(n->total_mb(96, 2) == Approx(96000));
    auto t = parse_req_mem("16G");
    REQUIRE(t);
    CHECK(t->per == MemRequest::Per::Job);
    CHECK(t->total_mb(8, 2) == Approx(16384));
    CHECK(parse_req_mem("2Gc")->total_mb(2, 1) == Approx(4096));
    CHECK(parse_req_mem("512K")->mb == Approx(0.5));
    CHECK(parse_req_mem("100")->mb == Approx(100));
    CHECK_FALSE(parse_req_mem(""));
    CHECK_FALSE(parse_req_mem("0n"));
    CHECK_FALSE(parse_req_mem("lots"));
}

TEST_CASE("TRES strings: cpu, mem, node and GPUs, typed or not") {
    auto t = parse_tres("billing=4,cpu=4,gres/gpu=2,mem=16G,node=1");
    CHECK(t.cpu == 4);
    CHECK(t.mem_mb == Approx(16384));
    CHECK(t.node == 1);
    CHECK(t.gpu == 2);
    auto typed = parse_tres("cpu=8,gres/gpu:a100=2,gres/gpu:v100=1,mem=100M,node=1");
    CHECK(typed.gpu == 3);
    auto both = parse_tres("cpu=8,gres/gpu=2,gres/gpu:a100=2");
    CHECK(both.gpu == 2);
    auto none = parse_tres("");
    CHECK(std::isnan(none.cpu));
    CHECK(std::isnan(none.gpu));
}

TEST_CASE("GPU requests in both GRES spellings (<= 23.02 and >= 23.11)") {
    CHECK(parse_gpu_request("gres:gpu:2") == 2);
    CHECK(parse_gpu_request("gres/gpu:2") == 2);
    CHECK(parse_gpu_request("gres/gpu:a100:4") == 4);
    CHECK(parse_gpu_request("gres:gpu") == 1);
    CHECK(parse_gpu_request("gpu:a100") == 1);
    CHECK(parse_gpu_request("gres/gpu=3") == 3);
    CHECK(parse_gpu_request("gres:gpu:2,gres:nvme:1") == 2);
    CHECK(parse_gpu_request("gres/gpu:1;gres/gpu:a100:1") == 2);
    CHECK(parse_gpu_request("gres:gpux:2") == 0);
    CHECK(parse_gpu_request("") == 0);
    CHECK(parse_gpu_request("gres:gpu:2(S:0-1)") == 2);
}

TEST_CASE("Job ids: plain, steps, array tasks, het components, pending arrays") {
    auto p = parse_job_id("123");
    REQUIRE(p);
    CHECK(p->job == "123");
    CHECK(p->step.empty());
    auto s = parse_job_id("123.batch");
    CHECK(s->job == "123");
    CHECK(s->step == "batch");
    auto a = parse_job_id("123_4.0");
    CHECK(a->job == "123_4");
    CHECK(a->array_job == "123");
    CHECK(a->step == "0");
    auto h = parse_job_id("200+1.extern");
    CHECK(h->job == "200+1");
    CHECK(h->het_leader == "200");
    CHECK(h->step == "extern");
    auto pend = parse_job_id("123_[5-10%2]");
    CHECK(pend->job == "123_[5-10%2]");
    CHECK(pend->step.empty());
    CHECK_FALSE(parse_job_id("abc"));
    CHECK_FALSE(parse_job_id(""));
    CHECK_FALSE(parse_job_id("12x_3"));
    CHECK_FALSE(parse_job_id("123."));
}

TEST_CASE("Array index expressions count their tasks") {
    CHECK(*array_task_count("1-3") == 3);
    CHECK(*array_task_count("0-99%10") == 100);
    CHECK(*array_task_count("1,3,5-7") == 5);
    // As slurmctld reads --array: brackets around the list, a %N limit after any item.
    CHECK(*array_task_count("[0-999]") == 1000);
    CHECK(*array_task_count("0-9%1,10-999") == 1000);
    CHECK(*array_task_count("[1,3,5-7]%2") == 5);
    CHECK(*array_task_count("1-10:2") == 5);
    CHECK(*array_task_count("7") == 1);
    CHECK_FALSE(array_task_count("5-1"));
    CHECK_FALSE(array_task_count("a-b"));
    // What slurmctld accepts and how many tasks it makes of it (issue 48; test/integration/array_spec.sh
    // submits the same specs to a real slurmctld): repeats count once, empty items are skipped, a blank
    // before a number is read as strtol reads it.
    CHECK(*array_task_count("0-999,") == 1000);
    CHECK(*array_task_count("0-499,,500-999") == 1000);
    CHECK(*array_task_count("0- 999") == 1000);
    CHECK(*array_task_count(std::string(1500 * 2, ',').replace(0, 1, "7")) == 1);
    std::string repeats;
    for (int i = 0; i < 1500; ++i) repeats += "3,";
    CHECK(*array_task_count(repeats) == 1);
    CHECK(*array_task_count("1-3,2-4") == 4);
    CHECK(*array_task_count("0-9:3,1-9:3") == 7);  // 0 3 6 9 and 1 4 7
    CHECK(*array_task_count("0-1000", 1001) == 1001);
    CHECK_FALSE(array_task_count("0-1001", 1001));  // past MaxArraySize: refused
    CHECK_FALSE(array_task_count("0 -9"));          // a blank before '-': refused
    CHECK_FALSE(array_task_count("-1"));
    CHECK_FALSE(array_task_count(","));
    // Unknown, not 1, when counting overlapping stepped ranges would cost more than a bounded amount of work.
    CHECK_FALSE(array_task_count("0-3999999:2,1-3999999:3", kSlurmMaxArraySize));
    CHECK(*array_task_count("0-3999999,5-10", kSlurmMaxArraySize) == 4000000);
}

namespace {
// slurmctld's reading as a bitmap, by brute force: the oracle for random specs.
std::optional<double> count_by_bitmap(const std::string &spec, int64_t max) {
    std::vector<bool> bits(static_cast<size_t>(max));
    size_t at = 0;
    bool any = false;
    while (at <= spec.size()) {
        size_t comma = std::min(spec.find(',', at), spec.size());
        std::string tok = spec.substr(at, comma - at);
        at = comma + 1;
        if (tok.empty()) continue;
        const char *p = tok.c_str();
        if (*p == '[') ++p;
        char *e = nullptr;
        long first = std::strtol(p, &e, 10), last = first, step = 1;
        if (*e == ']') ++e;
        if (first < 0) return std::nullopt;
        if (*e == '-') {
            last = std::strtol(e + 1, &e, 10);
            if (*e == ']') ++e;
            if (*e == ':') {
                step = std::strtol(e + 1, &e, 10);
                if (*e == ']') ++e;
                if ((*e && *e != '%') || step <= 0 || step >= max) return std::nullopt;
            } else if (*e && *e != '%') {
                return std::nullopt;
            }
            if (last < first) return std::nullopt;
        } else if (*e && *e != '%') {
            return std::nullopt;
        }
        if (last >= max) return std::nullopt;
        for (long i = first; i <= last; i += step) bits[static_cast<size_t>(i)] = true;
        any = true;
    }
    if (!any) return std::nullopt;
    return static_cast<double>(std::count(bits.begin(), bits.end(), true));
}
}  // namespace

TEST_CASE("Array index expressions: slurmctld's count on random specs, repeats, blanks, brackets and steps") {
    std::mt19937_64 rng(test::property_seed());
    const char *pieces[] = {"", " ", "[", "]", "-", ":", "%", ",", ",,", "+", "x"};
    for (int i = 0; i < 20000; ++i) {
        std::string spec;
        int items = 1 + static_cast<int>(rng() % 6);
        for (int k = 0; k < items; ++k) {
            if (k) spec += ",";
            if (rng() % 8 == 0) spec += pieces[rng() % 11];
            spec += std::to_string(rng() % 120);
            if (rng() % 2) spec += std::string(rng() % 5 == 0 ? "- " : "-") + std::to_string(rng() % 140);
            if (rng() % 4 == 0) spec += ":" + std::to_string(rng() % 9);
            if (rng() % 8 == 0) spec += pieces[rng() % 11];
            if (rng() % 6 == 0) spec += "%" + std::to_string(rng() % 4);
        }
        INFO("spec '" << spec << "'");
        CHECK(array_task_count(spec, 101) == count_by_bitmap(spec, 101));
    }
}

TEST_CASE("Exit codes") {
    CHECK(parse_exit_code("0:0")->code == 0);
    CHECK(parse_exit_code("1:0")->code == 1);
    CHECK(parse_exit_code("0:9")->signal == 9);
    CHECK_FALSE(parse_exit_code("x:y"));
}

TEST_CASE("sacct times: ISO forms, epoch seconds, Unknown/None") {
    auto t = parse_sacct_time("2024-01-05T10:20:30");
    REQUIRE(t);
    CHECK(*t == 1704450030);
    CHECK(*parse_sacct_time("2024-01-05 10:20:30") == 1704450030);
    CHECK(*parse_sacct_time("2024-01-05T10:20") == 1704450000);
    CHECK(*parse_sacct_time("2024-01-05") == 1704412800);
    CHECK(format_sacct_time(1704450030) == "2024-01-05T10:20:30");
    CHECK_FALSE(parse_sacct_time("Unknown"));
    CHECK_FALSE(parse_sacct_time("None"));
    CHECK_FALSE(parse_sacct_time(""));
    CHECK_FALSE(parse_sacct_time("2024-13-05T10:20:30"));
    CHECK_FALSE(parse_sacct_time("2024-01-05X10:20:30"));
    CHECK(hour_of_day(1704450030) == 10);
    CHECK(weekday(1704450030) == 4);  // 2024-01-05 was a Friday
}

TEST_CASE("Durations and time limits") {
    CHECK(*parse_duration_seconds("1-02:03:04") == 93784);
    CHECK(*parse_duration_seconds("02:03:04") == 7384);
    CHECK(*parse_duration_seconds("03:04") == 184);
    CHECK(*parse_duration_seconds("03:04.500") == Approx(184.5));
    CHECK(*parse_duration_seconds("2-12") == 2 * 86400 + 12 * 3600);
    CHECK(*parse_timelimit_minutes("00:30:00") == 30);
    CHECK(*parse_timelimit_minutes("7-00:00:00") == 7 * 24 * 60);
    CHECK(std::isinf(*parse_timelimit_minutes("UNLIMITED")));
    CHECK_FALSE(parse_timelimit_minutes("Partition_Limit"));
    CHECK_FALSE(parse_timelimit_minutes(""));
    CHECK_FALSE(parse_timelimit_minutes("1:2:3:4"));
}

TEST_CASE("States map to outcomes; labels follow the documented choice") {
    CHECK(*outcome_from_state("COMPLETED") == Outcome::Completed);
    CHECK(*outcome_from_state("CANCELLED by 1234") == Outcome::Cancelled);
    CHECK(*outcome_from_state("OUT_OF_MEMORY") == Outcome::OutOfMemory);
    CHECK(*outcome_from_state("NODE_FAIL") == Outcome::NodeFail);
    CHECK(*outcome_from_state("TIMEOUT") == Outcome::Timeout);
    CHECK(*outcome_from_state("RUNNING") == Outcome::Unfinished);
    CHECK(*outcome_from_state("REQUEUED") == Outcome::Requeued);
    CHECK_FALSE(outcome_from_state("SOMETIMES"));
    CHECK(is_labeled(Outcome::Completed));
    CHECK(is_labeled(Outcome::NodeFail));
    CHECK_FALSE(is_labeled(Outcome::Cancelled));
    CHECK_FALSE(is_labeled(Outcome::Preempted));
    CHECK_FALSE(is_labeled(Outcome::Unfinished));
    CHECK(failure_class_index(Outcome::Timeout) == 1);
    CHECK(failure_class_index(Outcome::Completed) == -1);
}

}  // namespace test_slurm_text
