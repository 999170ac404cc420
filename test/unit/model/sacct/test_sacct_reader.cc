#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "catch.h"
#include "model/sacct/sacct_reader.h"
#include "model/util/time_util.h"

namespace test_sacct_reader {

using namespace jfp;

namespace {

struct Collected {
    std::vector<JobRecord> jobs;
    std::vector<StepInfo> steps;
};

Collected read(const std::string &text, SacctReaderOptions opt = {}, SacctReadReport *report = nullptr) {
    Collected c;
    SacctReader r(
        opt, [&](JobRecord &&j) { c.jobs.push_back(std::move(j)); },
        [&](StepInfo &&s) { c.steps.push_back(std::move(s)); });
    r.read_text(text, "test.txt");
    if (report) *report = r.report();
    return c;
}

const char *kHeader =
    "JobIDRaw|JobID|User|Account|Partition|QOS|JobName|Submit|Start|End|State|ExitCode|ReqCPUS|ReqNodes|ReqMem|"
    "ReqTRES|Timelimit|MaxRSS|SubmitLine|AdminComment\n";

}  // namespace

TEST_CASE("sacct reader: a parsable2 export with header, steps folded into their job") {
    std::string text = std::string(kHeader) +
                       "100|100|alice|chem|batch|normal|wrf_run|2024-01-05T10:00:00|2024-01-05T10:01:00|"
                       "2024-01-05T10:11:00|COMPLETED|0:0|4|1|4000Mc|billing=4,cpu=4,mem=16000M,node=1|"
                       "01:00:00||sbatch --dependency=afterok:99 run.sh|jfp:t=00ab12\n"
                       "100.batch|100.batch||||||2024-01-05T10:00:00|2024-01-05T10:01:00|2024-01-05T10:11:00|"
                       "COMPLETED|0:0|4|1|4000Mc|||1200M||\n"
                       "100.extern|100.extern||||||2024-01-05T10:00:00|2024-01-05T10:01:00|"
                       "2024-01-05T10:11:00|COMPLETED|0:0|4|1|4000Mc|||1K||\n";
    SacctReadReport rep;
    auto c = read(text, {}, &rep);
    REQUIRE(c.jobs.size() == 1);
    CHECK(c.steps.empty());
    const auto &j = c.jobs[0];
    CHECK(j.job_key == "100");
    CHECK(j.user == "alice");
    CHECK(j.account == "chem");
    CHECK(j.name == "wrf_run");
    CHECK(j.outcome == Outcome::Completed);
    CHECK(j.req_cpus == 4);
    CHECK(j.req_mem_mb == Approx(16000));
    CHECK(j.timelimit_min == 60);
    CHECK(j.max_rss_mb == Approx(1200));
    CHECK(j.has_dependency == 1);
    CHECK(j.interactive == 0);
    CHECK(j.jfp_token == "00ab12");
    CHECK(j.cluster == "default");
    CHECK(rep.job_rows == 1);
    CHECK(rep.step_rows == 2);
    CHECK(rep.bad == 0);
}

TEST_CASE("sacct reader: arrays, het jobs, cancelled-by, OOM, NODE_FAIL, unknown times, UNLIMITED") {
    std::string text = std::string(kHeader) +
                       "201|200_1|bob|phys|gpu|normal|arr|2024-01-05T10:00:00|2024-01-05T10:00:01|"
                       "2024-01-05T10:02:00|FAILED|1:0|1|1|2G|cpu=1,gres/gpu=1,mem=2G,node=1|UNLIMITED|||\n"
                       "202|200_2|bob|phys|gpu|normal|arr|2024-01-05T10:00:00|Unknown|Unknown|"
                       "CANCELLED by 1234|0:0|1|1|2G||Partition_Limit|||\n"
                       "300|300+0|carol|phys|batch|normal|het|2024-01-05T11:00:00|2024-01-05T11:00:01|"
                       "2024-01-05T11:05:00|OUT_OF_MEMORY|0:125|2|1|48000Mn||1-00:00:00|||\n"
                       "301|300+1|carol|phys|batch|normal|het|2024-01-05T11:00:00|2024-01-05T11:00:01|"
                       "2024-01-05T11:05:00|NODE_FAIL|0:0|2|2|48000Mn||1-00:00:00||srun -N2 ./x|\n"
                       "400|400|dave||||interactive|2024-01-05T12:00:00|None|None|RUNNING|0:0|1||||||salloc -n1|\n";
    auto c = read(text);
    REQUIRE(c.jobs.size() == 5);
    CHECK(c.jobs[0].array_job == "200");
    CHECK(c.jobs[0].job_id == "200_1");
    CHECK(c.jobs[0].req_gpus == 1);
    CHECK(std::isinf(c.jobs[0].timelimit_min));
    CHECK(c.jobs[0].outcome == Outcome::Failed);
    CHECK(c.jobs[1].outcome == Outcome::Unfinished);  // cancelled before it started: no End, no verdict
    CHECK(std::isnan(c.jobs[1].timelimit_min));
    CHECK(c.jobs[2].outcome == Outcome::OutOfMemory);
    CHECK(c.jobs[2].req_mem_mb == Approx(48000));
    CHECK(c.jobs[3].outcome == Outcome::NodeFail);
    CHECK(c.jobs[3].req_mem_mb == Approx(96000));
    CHECK(c.jobs[3].interactive == 1);
    CHECK(c.jobs[4].outcome == Outcome::Unfinished);
    CHECK(c.jobs[4].interactive == 1);
    CHECK(c.jobs[4].end == 0);
}

TEST_CASE("sacct reader: headerless export with --format and another delimiter") {
    SacctReaderOptions opt;
    opt.delimiter = ";";
    opt.format = {"JobIDRaw", "User", "Submit", "End", "State"};
    opt.cluster = "mistral";
    auto c = read("7;eve;2024-02-01T00:00:00;2024-02-01T01:00:00;TIMEOUT\n"
                  "8;eve;2024-02-01T02:00:00;2024-02-01T03:00:00;COMPLETED\n",
                  opt);
    REQUIRE(c.jobs.size() == 2);
    CHECK(c.jobs[0].outcome == Outcome::Timeout);
    CHECK(c.jobs[0].cluster == "mistral");
    CHECK(std::isnan(c.jobs[0].req_mem_mb));
    CHECK(std::isnan(c.jobs[0].req_nodes));
}

TEST_CASE("sacct reader: converted traces without ReqNodes, ReqMem or QOS report them as missing") {
    SacctReadReport rep;
    auto c = read("JobID|User|Partition|JobName|Submit|Start|End|State|NCPUS|Timelimit\n"
                  "1|u1|p|app123|2024-02-01T00:00:00|2024-02-01T00:00:05|2024-02-01T01:00:00|COMPLETED|16|02:00:00\n",
                  {}, &rep);
    REQUIRE(c.jobs.size() == 1);
    CHECK(c.jobs[0].req_cpus == 16);
    CHECK(c.jobs[0].qos.empty());
    CHECK(std::isnan(c.jobs[0].has_dependency));
    auto has = [&](const char *n) {
        return std::find(rep.missing_optional.begin(), rep.missing_optional.end(), n) != rep.missing_optional.end();
    };
    CHECK(has("ReqNodes"));
    CHECK(has("ReqMem"));
    CHECK(has("QOS"));
    CHECK_FALSE(has("Partition"));
}

TEST_CASE("sacct reader: '|' inside JobName is recovered when only one column can hold it") {
    SacctReadReport rep;
    auto c = read("JobIDRaw|User|JobName|Submit|End|State|WorkDir\n"
                  "5|amy|a|b|c|2024-01-01T00:00:00|2024-01-01T01:00:00|FAILED|/home/amy\n",
                  {}, &rep);
    REQUIRE(c.jobs.size() == 1);
    CHECK(c.jobs[0].name == "a|b|c");
    CHECK(rep.recovered_pipes == 1);
    CHECK(rep.bad == 0);
}

TEST_CASE("sacct reader: an ambiguous '|' is reported with its line number, not mis-assigned") {
    SacctReadReport rep;
    auto c = read("JobIDRaw|User|JobName|Comment|Submit|End|State\n"
                  "5|amy|a|b|c|2024-01-01T00:00:00|2024-01-01T01:00:00|FAILED\n"
                  "6|amy|ok|fine|2024-01-01T00:00:00|2024-01-01T01:00:00|COMPLETED\n",
                  {}, &rep);
    REQUIRE(c.jobs.size() == 1);
    CHECK(c.jobs[0].job_key == "6");
    CHECK(rep.bad == 1);
    REQUIRE(rep.bad_lines.size() == 1);
    CHECK(rep.bad_lines[0].line == 2);
    CHECK(rep.bad_lines[0].reason.find("cannot be placed unambiguously") != std::string::npos);
    CHECK(rep.bad_lines[0].reason.find("--delimiter") != std::string::npos);
}

TEST_CASE("sacct reader: a newline inside a comment joins the record's lines") {
    SacctReadReport rep;
    auto c = read("JobIDRaw|User|Comment|Submit|End|State\n"
                  "9|amy|first line\nsecond line|2024-01-01T00:00:00|2024-01-01T01:00:00|COMPLETED\n"
                  "10|amy||2024-01-01T02:00:00|2024-01-01T03:00:00|FAILED\n",
                  {}, &rep);
    REQUIRE(c.jobs.size() == 2);
    CHECK(rep.joined_newlines == 1);
    CHECK(rep.bad == 0);
    CHECK(c.jobs[1].job_key == "10");
}

TEST_CASE("sacct reader: bad lines are counted with line numbers and reasons; good lines survive") {
    SacctReadReport rep;
    auto c = read("JobIDRaw|User|Submit|End|State\n"
                  "1|amy|2024-01-01T00:00:00|2024-01-01T01:00:00|COMPLETED\n"
                  "x1|amy|2024-01-01T00:00:00|2024-01-01T01:00:00|COMPLETED\n"
                  "2|amy|yesterday|2024-01-01T01:00:00|COMPLETED\n"
                  "3|amy|2024-01-01T00:00:00|2024-01-01T01:00:00|MAYBE\n"
                  "4|amy|2024-01-01T00:00:00\n"
                  "5||2024-01-01T00:00:00|2024-01-01T01:00:00|FAILED\n"
                  "\n"
                  "JobIDRaw|User|Submit|End|State\n"
                  "6|amy|2024-01-01T00:00:00|2024-01-01T01:00:00|FAILED\n",
                  {}, &rep);
    REQUIRE(c.jobs.size() == 2);
    CHECK(c.jobs[0].job_key == "1");
    CHECK(c.jobs[1].job_key == "6");
    // The cut-off record (line 6) is read with the line after it: a line that starts like a record never
    // ends a record short of fields (a job name may hold a newline and then a whole forged record).
    CHECK(rep.bad == 4);
    REQUIRE(rep.bad_lines.size() == 4);
    CHECK(rep.bad_lines[0].line == 3);
    CHECK(rep.bad_lines[0].reason.find("not a Slurm job id") != std::string::npos);
    CHECK(rep.bad_lines[1].line == 4);
    CHECK(rep.bad_lines[1].reason.find("not a time") != std::string::npos);
    CHECK(rep.bad_lines[2].reason.find("not a Slurm job state") != std::string::npos);
    CHECK(rep.bad_lines[3].line == 6);
    CHECK(rep.bad_lines[3].last_line == 7);
    CHECK(rep.bad_lines[3].reason.find("a record short of fields (cut off, or a field holding a newline)") == 0);
    CHECK(rep.header_lines == 2);
    CHECK(rep.blank_lines == 1);
}

TEST_CASE("sacct reader: a missing required column is a clear error naming it") {
    try {
        read("JobIDRaw|Submit|State\n1|2024-01-01T00:00:00|COMPLETED\n");
        FAIL("expected SacctFormatError");
    } catch (const SacctFormatError &e) {
        std::string msg = e.what();
        CHECK(msg.find("no User column") != std::string::npos);
        CHECK(msg.find("--format=") != std::string::npos);
    }
    CHECK_THROWS_AS(read("1|amy|2024-01-01T00:00:00|COMPLETED\n"), SacctFormatError);
}

TEST_CASE("sacct reader: steps whose job row is elsewhere are passed on, not lost") {
    auto c = read("JobIDRaw|User|Submit|End|State|MaxRSS\n"
                  "50.batch||2024-01-01T00:00:00|2024-01-01T01:00:00|OUT_OF_MEMORY|900M\n"
                  "51|amy|2024-01-01T00:00:00|2024-01-01T01:00:00|COMPLETED|\n");
    REQUIRE(c.steps.size() == 1);
    CHECK(c.steps[0].job_key == "50");
    CHECK(c.steps[0].max_rss_mb == Approx(900));
    CHECK(c.steps[0].out_of_memory);
    REQUIRE(c.jobs.size() == 1);
}

TEST_CASE("sacct reader: the real export captured from the throwaway cluster (Slurm 22.05)") {
    std::string path = std::string(JFP_TEST_SRCDIR) + "/test/fixtures/sacct_22.05.txt";
    std::FILE *in = std::fopen(path.c_str(), "rb");
    REQUIRE(in);
    Collected c;
    SacctReader r({}, [&](JobRecord &&j) { c.jobs.push_back(std::move(j)); },
                  [&](StepInfo &&s) { c.steps.push_back(std::move(s)); });
    r.read(in, path);
    std::fclose(in);
    const auto &rep = r.report();
    CHECK(rep.bad == 0);
    CHECK(rep.recovered_pipes == 1);
    CHECK(rep.joined_newlines == 1);
    std::map<std::string, const JobRecord *> by_name;
    std::map<std::string, int> count;
    for (const auto &j : c.jobs) {
        by_name[j.name] = &j;
        ++count[j.name];
    }
    REQUIRE(by_name.count("fx_ok"));
    CHECK(by_name["fx_ok"]->outcome == Outcome::Completed);
    CHECK(by_name["fx_ok"]->interactive == 0);
    CHECK(by_name["fx_fail"]->outcome == Outcome::Failed);
    CHECK(by_name["fx_fail"]->exit_code == 3);
    CHECK(by_name["fx_timeout"]->outcome == Outcome::Timeout);
    CHECK(by_name["fx_timeout"]->timelimit_min == 1);
    // OverMemoryKill: FAILED 0:9 with the step far over 30M; the store reads it as OUT_OF_MEMORY.
    JobRecord oom = *by_name["fx_oom"];
    CHECK(oom.outcome == Outcome::Failed);
    CHECK(oom.exit_signal == 9);
    CHECK(oom.req_mem_mb == 30);
    CHECK(oom.max_rss_mb > 300);
    infer_memory_kill(oom);
    CHECK(oom.outcome == Outcome::OutOfMemory);
    CHECK(count["fx_array"] == 3);
    CHECK(by_name["fx_array"]->array_job.size() > 0);
    CHECK(count["fx_het"] == 2);
    CHECK(by_name["fx_het"]->outcome == Outcome::Cancelled);
    CHECK(by_name["fx_cancel"]->outcome == Outcome::Cancelled);
    CHECK(by_name["fx_srun"]->interactive == 1);
    CHECK(by_name["fx_salloc"]->interactive == 1);
    // '|' in the name, the submit line and the comment, and a newline: the name is certain, the rest is not.
    REQUIRE(by_name.count("fx_pipe|name"));
    CHECK(by_name["fx_pipe|name"]->outcome == Outcome::Completed);
    CHECK(by_name["fx_pipe|name"]->submit_line.empty());
    CHECK(std::isnan(by_name["fx_pipe|name"]->has_dependency));
}

TEST_CASE("sacct reader: a job that ends after the ingest began is refused, with its line, not stored") {
    std::string future = format_sacct_time(naive_local_now() + 86400 * 400);
    std::string past = format_sacct_time(naive_local_now() - 3600);
    std::string text = "JobIDRaw|User|JobName|Submit|Start|End|State\n"
                       "1|alice|ok|" + past + "|" + past + "|" + past + "|COMPLETED\n"
                       "2|bob|forged|" + past + "|" + past + "|" + future + "|FAILED\n";
    SacctReadReport report;
    auto c = read(text, {}, &report);
    REQUIRE(c.jobs.size() == 1);
    CHECK(c.jobs[0].job_key == "1");
    REQUIRE(report.bad_lines.size() == 1);
    CHECK(report.bad_lines[0].line == 3);
    CHECK_THAT(report.bad_lines[0].reason, HasText("after this ingest began"));
}

TEST_CASE("sacct reader: with a delimiter no user typed, no job name yields a record (property)") {
    const std::string t0 = "2024-01-01T00:00:00", t1 = "2024-01-01T01:00:00";
    // A name that makes each line it spans a whole, valid record when the delimiter is '|'.
    const std::string crafted = "x|" + t0 + "|" + t1 + "|COMPLETED\n999|bob|forged|" + t0 + "|" + t1 + "|FAILED\n1000|bob|g";
    auto render = [&](const std::vector<std::pair<std::string, std::string>> &jobs, const std::string &d) {
        std::string s = "JobIDRaw" + d + "User" + d + "JobName" + d + "Submit" + d + "End" + d + "State\n";
        for (size_t i = 0; i < jobs.size(); ++i)
            s += std::to_string(100 + i) + d + jobs[i].first + d + jobs[i].second + d + t0 + d + t1 + d + "COMPLETED\n";
        return s;
    };
    SECTION("'|': the crafted name forges bob's jobs; why a one-character delimiter is trusted input only") {
        auto c = read(render({{"amy", crafted}}, "|"));
        bool forged = std::any_of(c.jobs.begin(), c.jobs.end(), [](const JobRecord &j) { return j.user == "bob"; });
        CHECK(forged);
    }
    SECTION("a random string: every job read is a real one, whole") {
        std::mt19937 rng(20261126);
        const std::string alphabet = "|\n0123456789abob:-T ";
        for (int round = 0; round < 300; ++round) {
            char nonce[32];
            std::snprintf(nonce, sizeof nonce, "|%08x%08x|", static_cast<unsigned>(rng()), static_cast<unsigned>(rng()));
            std::vector<std::pair<std::string, std::string>> jobs;
            for (int i = 0, n = 1 + static_cast<int>(rng() % 6); i < n; ++i) {
                std::string name;
                if (rng() % 3 == 0) {
                    name = crafted;
                } else {
                    name.resize(rng() % 60);
                    for (char &ch : name) ch = alphabet[rng() % alphabet.size()];
                }
                jobs.push_back({i % 2 ? "amy" : "cat", name});
            }
            SacctReaderOptions opt;
            opt.delimiter = nonce;
            SacctReadReport rep;
            auto c = read(render(jobs, nonce), opt, &rep);
            for (const auto &j : c.jobs) {
                size_t i = std::stoul(j.job_key) - 100;
                REQUIRE(i < jobs.size());
                CHECK(j.user == jobs[i].first);
                // The reader trims blanks and line ends around a field; nothing else of a name changes.
                auto strip = [](std::string v) {
                    size_t b = v.find_first_not_of(" \n"), e = v.find_last_not_of(" \n");
                    return b == std::string::npos ? std::string() : v.substr(b, e - b + 1);
                };
                INFO("name read: " << j.name << " | written: " << jobs[i].second);
                CHECK(strip(j.name) == strip(jobs[i].second));
            }
            CHECK(c.jobs.size() + rep.bad == jobs.size());
        }
    }
}

TEST_CASE("sacct reader: untrusted, a one-character delimiter with a column users write is refused before any row") {
    SacctReaderOptions untrusted;
    untrusted.trust_user_text = false;
    const std::string row = "7|7|amy|acct|batch|normal|job|2026-01-01T00:00:00|2026-01-01T00:00:01|2026-01-01T00:01:00|"
                            "COMPLETED|0:0|1|1|1G|cpu=1|00:10:00|10M||\n";
    CHECK_THROWS_WITH(read(std::string(kHeader) + row, untrusted), HasText("JobName") && HasText("is text users write"));
    auto with = [](std::string s, const std::string &d) {
        std::string out;
        for (char c : s) out += c == '|' ? d : std::string(1, c);
        return out;
    };
    // A delimiter string no user can type (16 hex digits, as the recipe makes): read. A string a user could
    // type ('||', a short tag) is refused like '|'.
    SacctReaderOptions nonce = untrusted;
    nonce.delimiter = "|a81f03c94e7d2b65|";
    CHECK(read(with(std::string(kHeader) + row, nonce.delimiter), nonce).jobs.size() == 1);
    for (const char *typable : {"||", "|a81f|", ";;", "<SEP>"}) {
        SacctReaderOptions t = untrusted;
        t.delimiter = typable;
        CHECK_THROWS_WITH(read(with(std::string(kHeader) + row, typable), t), HasText("is text users write"));
    }
    // A column jfp does not read but users write (sbatch --container) counts too.
    CHECK_THROWS_WITH(read("JobIDRaw|User|Container|State|Submit|End\n8|amy|/c|COMPLETED|2026-01-01T00:00:00|2026-01-01T00:01:00\n", untrusted),
                      HasText("column Container is text users write"));
    // No column users write: read with '|'.
    CHECK(read("JobIDRaw|JobID|User|State|Submit|End\n8|8|amy|COMPLETED|2026-01-01T00:00:00|2026-01-01T00:01:00\n", untrusted)
              .jobs.size() == 1);
    // The library's default (and jfp ingest --trusted-export) reads it.
    CHECK(read(std::string(kHeader) + row).jobs.size() == 1);
}

}  // namespace test_sacct_reader
