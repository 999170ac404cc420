// #SBATCH lines sbatch ignored, as the user reads them and as jfp.conf's ignored_directives acts on them.
#include <string>

#include "catch.h"
#include "model/policy/script_findings.h"

namespace test_script_findings {

using namespace jfp;

namespace {
const char *kScript = "#!/bin/bash\n#SBATCH -n 1\nmodule load gcc\n#SBATCH --mem=64G\n  #SBATCH -t 10\nsrun ./a\n";

JobRequest job() {
    JobRequest r;
    r.user = "alice";
    r.name = "sim";
    r.partition = "debug";
    r.req_mem_mb = 4096;
    r.timelimit_min = 60;
    r.req_cpus = 1;
    return r;
}

Config conf(Mode m, FindingAction a) {
    Config c;
    c.mode = m;
    c.ignored_directives = a;
    return c;
}
}  // namespace

TEST_CASE("script findings: a true sentence per ignored line: where, what the job asks instead, the fix") {
    DirectiveScan scan = find_ignored_directives(kScript);
    REQUIRE(scan.ignored.size() == 2);
    CHECK(ignored_directive_sentence(scan.ignored[0], scan.first_command_line, job()) ==
          "line 4: '#SBATCH --mem=64G' comes after the script's first command (line 3): sbatch ignored it; the "
          "job asks for 4096 MB of memory. Move it above line 3.");
    CHECK(ignored_directive_sentence(scan.ignored[1], scan.first_command_line, job()) ==
          "line 5: '#SBATCH -t 10' comes after the script's first command (line 3): sbatch ignored it; the job's time "
          "limit is 60 minutes. Move it above line 3.");
    auto indented = find_ignored_directives("#!/bin/sh\n   #SBATCH --partition=gpu\necho\n");
    REQUIRE(indented.ignored.size() == 1);
    CHECK(ignored_directive_sentence(indented.ignored[0], indented.first_command_line, job()) ==
          "line 2: '#SBATCH --partition=gpu' is indented: sbatch reads #SBATCH only at the start of a line and "
          "ignored it; the job goes to partition 'debug'. Remove the blanks before #SBATCH.");
    // An option jfp does not follow: the sentence says only what is certain.
    auto other = find_ignored_directives("#!/bin/sh\necho\n#SBATCH --mail-type=END\n");
    CHECK(ignored_directive_sentence(other.ignored[0], other.first_command_line, job()) ==
          "line 3: '#SBATCH --mail-type=END' comes after the script's first command (line 2): sbatch ignored it. "
          "Move it above line 2.");
    // User text reaches the user's terminal escaped.
    auto hostile = find_ignored_directives("#!/bin/sh\necho\n#SBATCH --x=\x1b]0;owned\x07\n");
    std::string s = ignored_directive_sentence(hostile.ignored[0], hostile.first_command_line, job());
    CHECK(s.find('\x1b') == std::string::npos);
    CHECK(s.find("\\x1b") != std::string::npos);
}

TEST_CASE("script findings: ignored_directives = off | warn | reject, under mode, override and exemptions") {
    DirectiveScan scan = find_ignored_directives(kScript);
    JobRequest r = job();
    auto warn = judge_script_findings(conf(Mode::Warn, FindingAction::Warn), r, scan, "", false);
    CHECK(warn.found);
    CHECK_FALSE(warn.reject);
    CHECK(warn.message.rfind("jfp: warning: sbatch ignored 2 #SBATCH lines of this script", 0) == 0);
    CHECK(warn.message.find("\n  line 4: ") != std::string::npos);
    // Certain, so it acts in any user-facing mode, whatever the model's threshold.
    CHECK(judge_script_findings(conf(Mode::Annotate, FindingAction::Warn), r, scan, "", false).message == warn.message);
    auto rej = judge_script_findings(conf(Mode::Warn, FindingAction::Reject), r, scan, "", false);
    CHECK(rej.reject);
    CHECK(rej.message.rfind("jfp: job refused: sbatch ignored 2 #SBATCH lines", 0) == 0);
    CHECK(rej.message.find("Fix the script and submit it again.") != std::string::npos);
    // Shadow: found, never said; off: not looked at.
    auto shadow = judge_script_findings(conf(Mode::Shadow, FindingAction::Reject), r, scan, "", false);
    CHECK(shadow.found);
    CHECK(shadow.message.empty());
    CHECK_FALSE(shadow.reject);
    CHECK_FALSE(judge_script_findings(conf(Mode::Reject, FindingAction::Off), r, scan, "", false).found);
    // The override, exemptions and privileged users are warned, not refused.
    Config c = conf(Mode::Reject, FindingAction::Reject);
    c.allow_override = true;
    auto over = judge_script_findings(c, r, scan, "x jfp:override", false);
    CHECK_FALSE(over.reject);
    CHECK(judge_script_findings(c, r, scan, "", false).message.find("or add --comment=jfp:override") != std::string::npos);
    CHECK_FALSE(judge_script_findings(c, r, scan, "", true).reject);
    c.reject_privileged = true;
    CHECK(judge_script_findings(c, r, scan, "", true).reject);
    c.exempt_users = {"alice"};
    CHECK_FALSE(judge_script_findings(c, r, scan, "", false).reject);
    // Nothing found: nothing said.
    CHECK_FALSE(judge_script_findings(c, r, find_ignored_directives("#!/bin/sh\n#SBATCH -n 1\necho\n"), "", false).found);
}

TEST_CASE("script findings: names from the module index reach the user escaped, as the script's own text does") {
    ModuleIndex ix = ModuleIndex::parse(
        "{\"gcc\": {\"/m/gcc/1.0\\u001b[2J.lua\": {\"fullName\": \"gcc/1.0\\u001b[2J\"}},"
        " \"pyth\\u001bon\": {\"/m/p.lua\": {\"fullName\": \"pyth\\u001bon\"}}}");
    for (const char *script : {"#!/bin/sh\nmodule load gcc/9\n", "#!/bin/sh\nmodule load python\n"}) {
        auto found = missing_modules(find_module_loads(script), ix);
        REQUIRE(found.size() == 1);
        std::string s = missing_module_sentence(found[0]);
        INFO(s);
        CHECK(s.find('\x1b') == std::string::npos);
        CHECK(s.find('\x07') == std::string::npos);
        CHECK(s.find("\\x1b") != std::string::npos);
    }
}

TEST_CASE("script findings: a module loaded by its path is not judged against the index") {
    ModuleIndex ix = ModuleIndex::parse(R"({"python": {"/m/python/3.11.4.lua": {"fullName": "python/3.11.4"}}})");
    std::vector<std::string> not_told;
    auto found = missing_modules(find_module_loads("#!/bin/sh\nmodule load /opt/mods/python/3.11.4.lua\nml ./local/mod ../x\nmodule load pyhton\n"),
                                 ix, &not_told);
    REQUIRE(found.size() == 1);
    CHECK(found[0].load.name == "pyhton");
    CHECK(not_told.size() == 3);
    for (const auto &n : not_told) CHECK(n.find("a path, not a module name") != std::string::npos);
}

TEST_CASE("script findings: the CLI's sentences are the plugin's, ignored lines first, modules only with an index") {
    ModuleIndex ix = ModuleIndex::parse(R"({"python": {"/m/python/3.11.4.lua": {"fullName": "python/3.11.4"}}})");
    const std::string script = "#!/bin/sh\nmodule load pyhton/3.11\n#SBATCH --mem=64G\nmodule load python/3.11\n";
    JobRequest r;
    r.req_mem_mb = 4096;
    auto with = script_finding_sentences(script, &ix, r);
    REQUIRE(with.size() == 2);
    DirectiveScan scan = find_ignored_directives(script);
    REQUIRE(scan.ignored.size() == 1);
    CHECK(with[0] == ignored_directive_sentence(scan.ignored[0], scan.first_command_line, r));
    CHECK(with[0].find("the job asks for 4096 MB of memory") != std::string::npos);
    auto found = missing_modules(find_module_loads(script), ix);
    REQUIRE(found.size() == 1);
    CHECK(with[1] == missing_module_sentence(found[0]));
    CHECK(with[1].find("pyhton") != std::string::npos);
    // Without an index only the ignored line; without the job's request the sentence says no figure.
    auto without = script_finding_sentences(script, nullptr, JobRequest{});
    REQUIRE(without.size() == 1);
    CHECK(without[0].find("asks for") == std::string::npos);
    CHECK(without[0].find("line 3: '#SBATCH --mem=64G'") == 0);
    CHECK(script_finding_sentences("#!/bin/sh\n#SBATCH -t 5\nmodule load python\n", &ix, r).empty());
}

}  // namespace test_script_findings
