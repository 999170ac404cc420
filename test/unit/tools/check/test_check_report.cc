// jfp check's report (tools/check/check_report.h): a line a finding with its fix under it, the Ok ones
// left out when quiet, and the count of problems the exit status is made of.
#include <sstream>
#include <string>
#include <vector>

#include "catch.h"
#include "test_support.h"
#include "tools/check/check_report.h"

namespace test_check_report {

using namespace jfp;

namespace {

std::vector<Finding> sample_findings() {
    return {{Finding::Level::Ok, "jfp.conf is root's, mode 0644", ""},
            {Finding::Level::Warning, "the store is 3 days old", "run jfp ingest"},
            {Finding::Level::Problem, "the plugin file is missing\x01", "install job_submit_jfp.so"},
            {Finding::Level::Problem, "SlurmUser cannot read the model", ""}};
}

}  // namespace

TEST_CASE("check report: every finding with its tag and fix, then the counts") {
    size_t problems = 99;
    const std::string text = findings_text(sample_findings(), false, problems);
    CHECK(problems == 2);
    CHECK(text == "  ok       jfp.conf is root's, mode 0644\n"
                  "  warning  the store is 3 days old\n"
                  "           fix: run jfp ingest\n"
                  "  PROBLEM  the plugin file is missing\\x01\n"
                  "           fix: install job_submit_jfp.so\n"
                  "  PROBLEM  SlurmUser cannot read the model\n"
                  "jfp check: 2 problems, 1 warning\n");
}

TEST_CASE("check report: quiet leaves out what is ok but counts the same") {
    size_t problems = 0;
    const std::string text = findings_text(sample_findings(), true, problems);
    CHECK(problems == 2);
    CHECK(text.find("  ok ") == std::string::npos);
    CHECK_THAT(text, HasText("  warning  the store is 3 days old\n"));
    CHECK_THAT(text, HasText("jfp check: 2 problems, 1 warning\n"));
    CHECK(findings_text({}, false, problems) == "jfp check: 0 problems, 0 warnings\n");
    CHECK(problems == 0);
}

TEST_CASE("check report: a site with no jfp.conf is a problem, said under the paths checked") {
    test::TempDir dir;
    SiteCheckOptions o;
    o.conf_path = dir.file("jfp.conf");
    o.slurm_conf_path = dir.file("slurm.conf");
    o.slurmctld = dir.file("no-slurmctld");
    o.systemd_root = dir.path();
    std::ostringstream out;
    const size_t problems = report_site_check(o, true, out);
    CHECK(problems >= 1);
    const std::string text = out.str();
    CHECK(text.rfind("jfp check: " + o.conf_path + ", " + o.slurm_conf_path + "\n", 0) == 0);
    CHECK_THAT(text, HasText("  PROBLEM  "));
    CHECK_THAT(text, HasText("jfp check: " + std::to_string(problems) + (problems == 1 ? " problem, " : " problems, ")));
}

}  // namespace test_check_report
