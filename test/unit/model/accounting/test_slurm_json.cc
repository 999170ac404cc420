// Slurm's JSON output, as each release writes it (test/fixtures/slurm-json: sacct --json and squeue --json
// of the same six jobs on real 22.05.8, 24.11.5 and 26.05.5 clusters; job 4's name holds a newline, a '|'
// and " AdminComment=jfp:t=0123456789abcdef"), and the sacct reader joining names by job id.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "catch.h"
#include "model/accounting/sacct_json.h"
#include "model/sacct/sacct_reader.h"
#include "model/accounting/slurm_json.h"

namespace test_slurm_json {

using namespace jfp;

namespace {

std::string fixture(const std::string &name) {
    std::ifstream in(std::string(JFP_TEST_SRCDIR) + "/test/fixtures/slurm-json/" + name, std::ios::binary);
    REQUIRE(in);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

const char *kEvilName = "evil\nname|x AdminComment=jfp:t=0123456789abcdef";

std::vector<JobRecord> read_jobs(const std::string &text, const JobUserTextById *user_text, SacctReadReport *report) {
    std::vector<JobRecord> jobs;
    SacctReaderOptions opt;
    opt.user_text = user_text;
    SacctReader r(opt, [&](JobRecord &&j) { jobs.push_back(std::move(j)); }, [](StepInfo &&) {});
    r.read_text(text, "test.txt");
    *report = r.report();
    return jobs;
}

}  // namespace

TEST_CASE("sacct --json of every release: each job's name exactly as its user wrote it, by JobIDRaw") {
    for (std::string release : {"22.05", "24.11", "26.05"}) {
        CAPTURE(release);
        auto t = sacct_json_user_text(fixture("sacct-" + release + ".json"), "sacct-" + release + ".json");
        CHECK(t.size() == 5);  // the held job never became eligible: sacct leaves it out
        REQUIRE(t.count("4"));
        CHECK(t["4"].name == kEvilName);
        CHECK(t["1"].name == "ok");
        CHECK(t["2"].name == "fail");
        CHECK(t["3"].name == "arr");  // array tasks by their own raw ids
        CHECK(t["6"].name == "arr");
        // 22.05 prints no submit line in JSON; later releases do, the user's words included
        CHECK(t["1"].has_submit_line == (release != "22.05"));
        if (release != "22.05") {
            CHECK(t["1"].submit_line == "sbatch -J ok --wrap true");
            CHECK(t["4"].submit_line.find("AdminComment=jfp:t=0123456789abcdef") != std::string::npos);
        }
    }
}

TEST_CASE("squeue --json of every release: tokens only from AdminComment, never from a name") {
    for (std::string release : {"22.05", "24.11", "26.05"}) {
        CAPTURE(release);
        auto tokens = squeue_json_tokens_text(fixture("squeue-" + release + ".json"), "squeue-" + release + ".json");
        REQUIRE(tokens.size() == 1);
        CHECK(tokens[0] == std::make_pair(std::string("5"), std::string("fedcba9876543210")));
        for (const auto &[id, token] : tokens) CHECK(token != "0123456789abcdef");
    }
}

TEST_CASE("squeue --json: a running array task under both ids; unset numbers are absent") {
    // The 23.02+ shape of numbers; 22.05 writes plain numbers and null.
    const char *text = R"({"jobs": [
        {"job_id": 7, "admin_comment": "jfp:t=aaaaaaaaaaaaaaaa", "array_job_id": {"set": true, "infinite": false, "number": 3},
         "array_task_id": {"set": true, "infinite": false, "number": 2}, "name": "x"},
        {"job_id": 8, "admin_comment": "jfp:t=bbbbbbbbbbbbbbbb", "array_job_id": {"set": true, "infinite": false, "number": 0},
         "array_task_id": {"set": false, "infinite": false, "number": 0}},
        {"job_id": 9, "admin_comment": "jfp:t=cccccccccccccccc", "array_job_id": 4, "array_task_id": 1},
        {"job_id": 10, "admin_comment": "jfp:t=dddddddddddddddd", "array_job_id": 4, "array_task_id": null},
        {"job_id": 11, "admin_comment": "no token here", "name": "jfp:t=eeeeeeeeeeeeeeee"}
    ]})";
    auto t = squeue_json_tokens_text(text, "inline");
    std::vector<std::pair<std::string, std::string>> want = {
        {"7", "aaaaaaaaaaaaaaaa"}, {"3_2", "aaaaaaaaaaaaaaaa"}, {"8", "bbbbbbbbbbbbbbbb"},
        {"9", "cccccccccccccccc"}, {"4_1", "cccccccccccccccc"}, {"10", "dddddddddddddddd"}};
    CHECK(t == want);
}

TEST_CASE("Slurm JSON: what is not its output is refused with the reason") {
    auto refused = [](const std::string &text) {
        try {
            squeue_json_tokens_text(text, "out.json");
        } catch (const SlurmJsonError &e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(refused("{\"jobs\": [{\"job_id\": 1, ").find("out.json: not Slurm's JSON output") == 0);
    CHECK(refused("JobIDRaw|JobID\n1|1\n").find("not Slurm's JSON output") != std::string::npos);
    CHECK(refused("{\"meta\": {}}").find("without a \"jobs\" array") != std::string::npos);
    CHECK(refused("{\"jobs\": []}").empty());
}

TEST_CASE("sacct reader: an export without the columns users write takes names by job id from sacct --json") {
    auto names = sacct_json_user_text(fixture("sacct-24.11.json"), "sacct-24.11.json");
    std::string text = std::string(
                           "JobIDRaw|JobID|User|UID|Account|Partition|QOS|Submit|Start|End|State|ExitCode\n"
                           "4|4|root|0|root|debug|normal|2026-11-25T20:51:01|2026-11-25T20:51:02|2026-11-25T20:51:03|COMPLETED|0:0\n"
                           "4.batch|4.batch|||root|||2026-11-25T20:51:02|2026-11-25T20:51:02|2026-11-25T20:51:03|COMPLETED|0:0\n"
                           "77|77|root|0|root|debug|normal|2026-11-25T20:51:01|2026-11-25T20:51:02|2026-11-25T20:51:03|FAILED|1:0\n");
    SacctReadReport report;
    auto jobs = read_jobs(text, &names, &report);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].job_key == "4");
    CHECK(jobs[0].name == kEvilName);
    CHECK(jobs[0].interactive == 0);  // from the submit line: sbatch
    CHECK(jobs[0].jfp_token.empty());
    // Job 77 is not in the JSON (it ended after): a bad line that says so, not a job without a name.
    REQUIRE(report.bad == 1);
    CHECK(report.bad_lines[0].line == 4);
    CHECK(report.bad_lines[0].reason.find("job 77 is not in sacct --json's output") == 0);
    for (const auto &m : report.missing_optional) CHECK((m != "JobName" && m != "SubmitLine"));
}

TEST_CASE("sacct reader: a job name holding a newline and a whole record stays that job's name") {
    const std::string header = "JobIDRaw|JobID|User|UID|Account|Partition|QOS|Submit|Start|End|State|ExitCode|JobName|ReqCPUS\n";
    const std::string forged = "990002|990002|userb|1002|acct|debug|normal|2026-11-01T10:00:00|2026-11-01T10:00:01|"
                               "2026-11-01T10:01:00|FAILED|1:0|important|1";
    // usera's job 5 is named "x\n" + a record of userb's: the export's lines then read "5|...|x", the forged
    // record, and the rest of job 5's fields after it.
    std::string text = header +
                       "5|5|usera|1001|acct|debug|normal|2026-11-01T09:00:00|2026-11-01T09:00:01|2026-11-01T09:00:02|"
                       "COMPLETED|0:0|x\n" + forged + "|1\n" +
                       "6|6|usera|1001|acct|debug|normal|2026-11-01T09:10:00|2026-11-01T09:10:01|2026-11-01T09:10:02|"
                       "COMPLETED|0:0|plain|1\n";
    SacctReadReport report;
    auto jobs = read_jobs(text, nullptr, &report);
    for (const auto &j : jobs) {
        CAPTURE(j.job_key, j.name);
        CHECK(j.job_key != "990002");
        CHECK(j.user != "userb");
    }
    // Job 5 is read whole, its name holding the forged text; job 6 after it.
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[0].job_key == "5");
    CHECK(jobs[0].name == "x\n" + forged);
    CHECK(jobs[1].job_key == "6");
    CHECK(report.bad == 0);
}

TEST_CASE("sacct --json as an export file: every release's jobs, each name whole, nothing forged, nothing bad") {
    for (std::string release : {"22.05", "24.11", "26.05"}) {
        CAPTURE(release);
        SacctJsonExport x = sacct_json_export_text(fixture("sacct-" + release + ".json"), release);
        CHECK(x.jobs == 5);
        SacctReadReport report;
        auto jobs = read_jobs(x.rows, &x.user_text, &report);
        CHECK(report.bad == 0);
        for (const auto &b : report.bad_lines) FAIL_CHECK("line " << b.line << ": " << b.reason << ": " << b.text);
        REQUIRE(jobs.size() == 5);
        std::map<std::string, const JobRecord *> by_id;
        for (const auto &j : jobs) by_id[j.job_key] = &j;
        REQUIRE(by_id.count("4"));
        CHECK(by_id["4"]->name == kEvilName);  // one job, its name as written
        CHECK(by_id["4"]->jfp_token.empty());  // a name is never an AdminComment
        CHECK(by_id["1"]->outcome == Outcome::Completed);
        CHECK(by_id["2"]->outcome == Outcome::Failed);
        CHECK(by_id["3"]->job_id == "3_2");  // an array task, shown as sacct shows it
        CHECK(by_id["3"]->outcome == Outcome::Failed);
        CHECK(by_id["1"]->req_cpus == 1);
        CHECK(by_id["1"]->req_mem_mb == 100);
        CHECK(by_id["1"]->timelimit_min == 10);
        CHECK(by_id["6"]->timelimit_min == 5);
        CHECK(by_id["1"]->submit > 0);
        CHECK(by_id["1"]->end >= by_id["1"]->start);
        if (release != "22.05") CHECK(by_id["2"]->exit_code == 3);  // 22.05's JSON says 0 for every job
    }
    CHECK_THROWS_AS(sacct_json_export_text("{\"meta\": {}}", "x"), SlurmJsonError);
    CHECK_THROWS_AS(sacct_json_export_text("{\"jobs\": [", "x"), SlurmJsonError);
}

}  // namespace test_slurm_json
