#include <cmath>

#include "catch.h"
#include "model/jobs/outcome.h"
#include "model/jobs/slurm_text.h"
#include "model/util/time_util.h"

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
