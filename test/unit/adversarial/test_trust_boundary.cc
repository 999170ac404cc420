// The pieces of the trust boundary below the plugin: the caps on what a user sizes, partition lists, the
// facts kept in AdminComment for updates, the one escaper, and Slurm's JSON with bytes that are not UTF-8.
#include <cmath>
#include <random>
#include <string>

#include "catch.h"
#include "model/accounting/slurm_json.h"
#include "model/request/job_record_view.h"
#include "model/request/request_caps.h"
#include "model/scoring/features.h"
#include "model/util/text.h"
#include "model/util/utf8_repair.h"

namespace test_trust_boundary {

using namespace jfp;

TEST_CASE("caps: every field cut at its first NUL and at slurmctld's limit; idempotent") {
    std::string name(3000, 'n'), comment = std::string("mine", 4) + std::string(1, '\0') + "hidden", account(5000, 'a');
    std::string script = std::string("#!/bin/sh\ntrue\n") + std::string(1, '\0') + std::string(100000, '#');
    std::string part(2000, 'p');
    const char *env[] = {"A=1", "B=2"};
    SubmitRequest r;
    r.name = name;
    r.comment = comment;
    r.account = account;
    r.partition = part;
    r.script = script;
    r.env = env;
    r.env_count = 100000;
    normalise(r);
    CHECK(r.name.size() == 1024);
    CHECK(r.comment == "mine");
    CHECK(r.account.size() == 1024);
    CHECK(r.partition.size() == 1024);
    CHECK(r.script == "#!/bin/sh\ntrue\n");
    CHECK(r.env_count == RequestCaps::kEnvEntries);
    SubmitRequest again = r;
    normalise(again);
    CHECK(again.name == r.name);
    CHECK(again.script == r.script);
    CHECK(again.partition == r.partition);
    // Unset stays unset (a null view): an update tells "not given" from "given empty" by it.
    SubmitRequest unset;
    normalise(unset);
    CHECK(unset.name.data() == nullptr);
    CHECK(unset.partition.data() == nullptr);
}

TEST_CASE("caps: a partition list's distinct entries, in order, empty ones dropped") {
    CHECK(partition_entries("debug") == std::vector<std::string_view>{"debug"});
    CHECK(partition_entries("long,debug,long,,debug,") == std::vector<std::string_view>{"long", "debug"});
    CHECK(partition_entries(",,,").empty());
    std::string many;
    for (int i = 0; i < 300; ++i) many += "p" + std::to_string(i % 40) + ",";
    auto e = partition_entries(many);
    CHECK(e.size() == 40);
    CHECK(e[39] == "p39");
    CHECK(partition_entries(many, 5).size() == 5);
}

TEST_CASE("update: the job after an update takes each field the update gives, given empty included") {
    SubmitRequest job, delta;
    job.name = "steady";
    job.partition = "debug";
    job.dependency = "afterok:1";
    job.time_limit_min = 30;
    job.mem_mb = 100;
    job.mem_per_cpu = true;
    delta.name = "doomed";
    delta.dependency = std::string_view("", 0);  // scontrol update Dependency= : cleared
    delta.mem_mb = 4000;
    delta.mem_per_cpu = false;
    SubmitRequest after = merge_update(job, delta);
    CHECK(after.name == "doomed");
    CHECK(after.partition == "debug");
    CHECK(after.dependency.empty());
    CHECK(after.time_limit_min == 30);
    CHECK(after.mem_mb == 4000);
    CHECK_FALSE(after.mem_per_cpu);
    CHECK(user_part_of_comment("mine jfp:p=0.120,class=FAILED,model=m") == "mine");
    CHECK(user_part_of_comment("jfp:p=0.120,model=m") == "");
    CHECK(user_part_of_comment("no annotation") == "no annotation");
}

TEST_CASE("update: the facts kept in AdminComment come back as written; anything else reads as none") {
    FeatureVector x{};
    x.fill(std::nanf(""));
    std::string admin = "jfp:t=0123456789abcdef";
    append_submission_facts(admin, 1, x);
    CHECK(admin == "jfp:t=0123456789abcdef");  // a plain job, script not scanned: nothing to keep
    append_submission_facts(admin, 100, x);
    CHECK(admin == "jfp:t=0123456789abcdef jfp:s=100.............");
    auto f = parse_submission_facts(admin);
    REQUIRE(f);
    CHECK(f->array_size == 100);
    CHECK_FALSE(f->script_known);
    CHECK(std::isnan(f->findings.ignored_sbatch));
    CHECK(std::isnan(f->findings.missing_modules));
    // A job submitted before the findings were kept (12 fields): read, the findings unknown.
    auto old = parse_submission_facts("jfp:s=1.20.3.0.1.2.0.1.0.0.0.1");
    REQUIRE(old);
    CHECK(old->script_known);
    CHECK(std::isnan(old->findings.ignored_sbatch));
    // The findings alone (the script's scan left to the feature-log thread): kept, the script not.
    std::string found = "jfp:t=0123456789abcdef";
    x[F_script_ignored_sbatch] = 2;
    append_submission_facts(found, 1, x);
    CHECK(found == "jfp:t=0123456789abcdef jfp:s=1............2.");
    auto ff = parse_submission_facts(found);
    REQUIRE(ff);
    CHECK_FALSE(ff->script_known);
    CHECK(ff->findings.ignored_sbatch == 2);
    CHECK(std::isnan(ff->findings.missing_modules));
    std::mt19937 g(7);
    for (int round = 0; round < 200; ++round) {
        for (int i = F_script_bytes; i <= F_script_set_e; ++i)
            x[static_cast<size_t>(i)] = static_cast<float>(g() % (i == F_script_bytes ? 20000000u : 300u));
        std::string a = "jfp:t=0123456789abcdef jfp:p=0.5,model=m";
        double array = 1 + g() % 5000;
        // Each finding counted (0 to the scan's cap) or not looked for (NaN).
        for (int i : {F_script_ignored_sbatch, F_script_missing_modules})
            x[static_cast<size_t>(i)] = g() % 3 == 0 ? std::nanf("") : static_cast<float>(g() % 9);
        append_submission_facts(a, array, x);
        auto back = parse_submission_facts(a);
        REQUIRE(back);
        CHECK(back->array_size == array);
        REQUIRE(back->script_known);
        for (int i = 0; i < kScriptFeatureCount; ++i) CHECK(back->script[static_cast<size_t>(i)] == x[static_cast<size_t>(F_script_bytes + i)]);
        auto same = [](double got, float want) { return std::isnan(want) ? std::isnan(got) : got == static_cast<double>(want); };
        CHECK(same(back->findings.ignored_sbatch, x[F_script_ignored_sbatch]));
        CHECK(same(back->findings.missing_modules, x[F_script_missing_modules]));
    }
    for (const char *bad : {"jfp:s=", "jfp:s=.1.2", "jfp:s=1.2.3", "jfp:s=1.........../", "jfp:s=-1...........",
                            "jfp:s=1.1.1.1.1.1.1.1.1.1.1.1.1", "jfp:s=1.1.1.1.1.1.1.1.1.1.1.1.1.1.1",
                            "jfp:s=1.............-1", "jfp:s=1.1..........", "jfp:s=nan..........."})
        CHECK_FALSE(parse_submission_facts(bad));
}

TEST_CASE("escaper: controls, C1, bidirectional controls and broken UTF-8 are shown, never passed through") {
    CHECK(printable("plain ümlaut 名前") == "plain ümlaut 名前");
    CHECK(printable("a\x1b[2Jb") == "a\\x1b[2Jb");
    CHECK(printable("a\nb\tc") == "a\\x0ab\\x09c");
    CHECK(printable("a\nb\tc", std::string::npos, true) == "a\nb\tc");
    CHECK(printable("csi\xc2\x9b" "31m osc\xc2\x9d" "0;x") == "csi\\u009b31m osc\\u009d0;x");
    CHECK(printable("exe\xe2\x80\xaetxt.sh") == "exe\\u202etxt.sh");
    CHECK(printable("\xe2\x81\xa6iso\xe2\x81\xa9 \xe2\x80\x8f \xd8\x9c \xe2\x80\xa8") == "\\u2066iso\\u2069 \\u200f \\u061c \\u2028");
    CHECK(printable("\xff\xc3") == "\\xff\\xc3");
    // Escaped text passes through unchanged: escaping twice is escaping once.
    std::mt19937 g(3);
    for (int i = 0; i < 2000; ++i) {
        std::string s;
        for (int k = 0, n = static_cast<int>(g() % 40); k < n; ++k) s.push_back(static_cast<char>(g() % 256));
        std::string once = printable(s);
        CHECK(printable(once) == once);
        for (unsigned char c : once) CHECK((c >= 0x20 && c != 0x7f));
    }
}

TEST_CASE("Slurm's JSON: a byte that is not UTF-8 costs its own name, not the document") {
    std::string doc = "{\"jobs\": [{\"job_id\": 7, \"name\": \"ok\", \"admin_comment\": \"jfp:t=0123456789abcdef\"},"
                      "{\"job_id\": 8, \"name\": \"bad\xff\xfe name \xe2\x82\", \"admin_comment\": \"jfp:t=fedcba9876543210\"}]}";
    auto tokens = squeue_json_tokens_text(doc, "squeue --json");
    REQUIRE(tokens.size() == 2);
    CHECK(tokens[1].second == "fedcba9876543210");
    auto names = sacct_json_user_text(doc, "sacct --json");
    CHECK(names.at("7").name == "ok");
    CHECK(names.at("8").name == "bad\\xff\\xfe name \\xe2\\x82");
    // Cut in the middle of a character at any point of a long document, read in chunks: the same result.
    std::string big = "{\"jobs\": [";
    for (int i = 0; i < 20000; ++i) big += std::string(i ? "," : "") + "{\"job_id\": " + std::to_string(i) + ", \"name\": \"名\xff\"}";
    big += "]}";
    auto many = sacct_json_user_text(big, "big");
    CHECK(many.size() == 20000);
    CHECK(many.at("19999").name == "名\\xff");
    CHECK(repair_utf8("a\xe2\x82") == "a\\\\xe2\\\\x82");
}

}  // namespace test_trust_boundary
