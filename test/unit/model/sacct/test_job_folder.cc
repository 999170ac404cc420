// JobFolder: step rows fold into the job printed before them; a job is handed on when the next one comes.
#include <vector>

#include "catch.h"
#include "model/sacct/job_folder.h"
#include "model/util/time_util.h"

namespace test_job_folder {

using namespace jfp;

namespace {

SacctRow job_row(const std::string &key, int64_t end, Outcome outcome = Outcome::Failed) {
    SacctRow r;
    r.kind = SacctRow::Kind::Job;
    r.job.job_key = key;
    r.job.cluster = "c";
    r.job.end = end;
    r.job.outcome = outcome;
    return r;
}

SacctRow step_row(const std::string &key, double rss_mb, bool oom = false, bool batch = false) {
    SacctRow r;
    r.kind = SacctRow::Kind::Step;
    r.step.job_key = key;
    r.step.cluster = "c";
    r.step.max_rss_mb = rss_mb;
    r.step.out_of_memory = oom;
    r.batch_step = batch;
    return r;
}

}  // namespace

TEST_CASE("job folder: steps fold into their job; an orphan step goes on alone; jobs come out in order") {
    std::vector<JobRecord> jobs;
    std::vector<StepInfo> steps;
    JobFolder f([&](JobRecord &&j) { jobs.push_back(std::move(j)); }, [&](StepInfo &&s) { steps.push_back(std::move(s)); });
    const int64_t now = naive_local_now();
    f.start(now);
    CHECK_FALSE(f.add(step_row("9", 100), nullptr));  // its job came in an earlier export
    CHECK(steps.size() == 1);
    CHECK_FALSE(f.add(job_row("10", now - 60), nullptr));
    CHECK(jobs.empty());  // held for its steps
    CHECK_FALSE(f.add(step_row("10", 500), nullptr));
    CHECK_FALSE(f.add(step_row("10", 800, true, true), nullptr));
    CHECK_FALSE(f.add(step_row("10", 200), nullptr));
    CHECK_FALSE(f.add(job_row("11", now - 30, Outcome::Completed), nullptr));
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].job_key == "10");
    CHECK(jobs[0].max_rss_mb == 800);
    CHECK(jobs[0].outcome == Outcome::OutOfMemory);  // a failed job whose step ran out of memory
    CHECK(jobs[0].interactive == 0);                 // it had a batch step
    f.flush();
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[1].outcome == Outcome::Completed);
    CHECK(f.job_rows() == 2);
    CHECK(f.step_rows() == 4);
}

TEST_CASE("job folder: a job ending after the export began is refused with why; sacct --json's names replace the export's") {
    std::vector<JobRecord> jobs;
    JobFolder f([&](JobRecord &&j) { jobs.push_back(std::move(j)); }, [](StepInfo &&) {});
    const int64_t now = naive_local_now();
    f.start(now);
    auto why = f.add(job_row("12", now + 2 * 3600), nullptr);
    REQUIRE(why);
    CHECK(why->find("job 12 ends at") != std::string::npos);
    CHECK_FALSE(f.add(job_row("13", now + 1800), nullptr));  // within the hour clocks may disagree by

    JobUserTextById text;
    text["14"] = JobUserText{"from-json", true, "sbatch run.sh"};
    CHECK_FALSE(f.add(job_row("14", now - 1), &text));
    why = f.add(job_row("15", now - 1), &text);
    REQUIRE(why);
    CHECK(why->find("not in sacct --json's output") != std::string::npos);
    f.flush();
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[1].name == "from-json");
    CHECK(jobs[1].submit_line == "sbatch run.sh");
}

}  // namespace test_job_folder
