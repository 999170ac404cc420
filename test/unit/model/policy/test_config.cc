#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "catch.h"
#include "model/policy/config.h"

namespace test_config {

using namespace jfp;

TEST_CASE("jfp.conf: every key parses, case-insensitively, with comments") {
    auto r = parse_config(R"(# site policy
Mode = reject
model=/srv/jfp/model.json   # trailing comment
STORE = /srv/jfp/history.db
threshold = 0.85
threshold.partition.gpu = 0.95
threshold.account.chem = 0.7
threshold.qos.long = 0.99
exempt_users = alice, bob
exempt_accounts = admin
exempt_partitions = debug
exempt_qos = urgent
min_history = 3
allow_override = yes
override_token = please-run
annotate_field = comment, admin_comment
explain = no
log_queue_size = 500
reload_interval = 2.5
)", "jfp.conf");
    REQUIRE(r.ok());
    const Config &c = r.config;
    CHECK(c.mode == Mode::Reject);
    CHECK(c.model_path == "/srv/jfp/model.json");
    CHECK(c.store_path == "/srv/jfp/history.db");
    CHECK(c.resolved_feature_log_path() == "/srv/jfp/features.db");
    REQUIRE(c.threshold);
    CHECK(*c.threshold == Approx(0.85));
    CHECK(c.partition_threshold.at("gpu") == Approx(0.95));
    CHECK(c.account_threshold.at("chem") == Approx(0.7));
    CHECK(c.qos_threshold.at("long") == Approx(0.99));
    CHECK(c.exempt_users == std::set<std::string>{"alice", "bob"});
    CHECK(c.exempt_accounts.count("admin") == 1);
    CHECK(c.exempt_partitions.count("debug") == 1);
    CHECK(c.exempt_qos.count("urgent") == 1);
    CHECK(c.min_history == 3);
    CHECK(c.allow_override);
    CHECK(c.override_token == "please-run");
    CHECK(c.annotate_comment);
    CHECK(c.annotate_admin_comment);
    CHECK_FALSE(c.explain);
    CHECK(c.log_queue_size == 500);
    CHECK(c.reload_interval_seconds == Approx(2.5));
}

TEST_CASE("jfp.conf: defaults when keys are absent") {
    auto r = parse_config("\n# nothing\n", "jfp.conf");
    REQUIRE(r.ok());
    CHECK(r.config.mode == Mode::Shadow);
    CHECK_FALSE(r.config.threshold);
    CHECK(r.config.annotate_comment);
    CHECK_FALSE(r.config.annotate_admin_comment);
    CHECK_FALSE(r.config.allow_override);
}

TEST_CASE("jfp.conf: errors name the file, line, key and what is expected") {
    auto r = parse_config("mode = sometimes\nthreshold = 1.5\nbogus = 1\nno equals sign\nmin_history=-1\n",
                          "/etc/slurm/jfp.conf");
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.errors.size() == 5);
    CHECK(r.errors[0].line == 1);
    auto text = r.error_text();
    CHECK(text.find("/etc/slurm/jfp.conf:1: invalid value 'sometimes' for mode") != std::string::npos);
    CHECK(text.find("/etc/slurm/jfp.conf:2: invalid value '1.5' for threshold") != std::string::npos);
    CHECK(text.find("/etc/slurm/jfp.conf:3: unknown key 'bogus'") != std::string::npos);
    CHECK(text.find("/etc/slurm/jfp.conf:4: expected key = value") != std::string::npos);
    CHECK(text.find("/etc/slurm/jfp.conf:5: invalid value '-1' for min_history") != std::string::npos);
}

TEST_CASE("jfp.conf: a huge or very broken file gives one short line") {
    std::string garbage;
    for (int i = 0; i < 1000; ++i) garbage += "garbage line " + std::to_string(i) + "\n";
    auto r = parse_config(garbage, "/etc/slurm/jfp.conf");
    REQUIRE(r.errors.size() == 1000);
    auto text = r.error_text();
    CHECK(text.find('\n') == std::string::npos);
    CHECK(text.find("/etc/slurm/jfp.conf:5: expected key = value") != std::string::npos);
    CHECK(text.find("jfp.conf:6:") == std::string::npos);
    CHECK(text.find("; and 995 more errors") != std::string::npos);
    // Binary bytes in the file reach slurmctld's log escaped.
    auto bin = parse_config("\x01\xff = 1\nmode = \x1b[31m\nno\x7f equals\n", "/etc/slurm/jfp.conf");
    CHECK(bin.error_text() == "/etc/slurm/jfp.conf:1: unknown key '\\x01\\xff' (see jfp.conf(5) for the keys); "
                              "/etc/slurm/jfp.conf:2: invalid value '\\x1b[31m' for mode: expected off, shadow, warn, "
                              "annotate or reject; /etc/slurm/jfp.conf:3: expected key = value, found 'no\\x7f equals'");

    char dir[] = "/tmp/jfp-conf.XXXXXX";
    REQUIRE(mkdtemp(dir));
    std::string path = std::string(dir) + "/jfp.conf";
    {
        std::ofstream f(path);
        f << "mode = annotate\n" << std::string(2 << 20, '#') << "\n";
    }
    auto big = load_config_file(path);
    REQUIRE_FALSE(big.ok());
    CHECK(big.error_text() == path + ": larger than 1 MiB: not a jfp.conf (see jfp.conf(5)); refused unread");
    std::remove(path.c_str());
    rmdir(dir);
}

TEST_CASE("jfp.conf: a missing file is an error naming the path") {
    auto r = load_config_file("/nonexistent/jfp.conf");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error_text().find("/nonexistent/jfp.conf: cannot read") != std::string::npos);
}

TEST_CASE("config: a reload says every setting that changed, with what it was") {
    auto a = parse_config("mode = warn\nthreshold = 0.5\nexempt_users = root\n", "a");
    auto b = parse_config("mode = reject\nthreshold = 0.4\nexempt_users = root, alice\nthreshold.partition.gpu = 0.7\n", "b");
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    std::string c = config_changes(a.config, b.config);
    CHECK(c.find("mode=reject (was warn)") != std::string::npos);
    CHECK(c.find("threshold=0.4 (was 0.5)") != std::string::npos);
    CHECK(c.find("exempt_users=alice,root (was root)") != std::string::npos);
    CHECK(c.find("threshold.partition.gpu=0.7 (was unset)") != std::string::npos);
    CHECK(c.find("min_history") == std::string::npos);  // unchanged settings are not listed
    CHECK(config_changes(a.config, a.config).empty());
    CHECK(config_changes(b.config, a.config).find("threshold.partition.gpu unset (was 0.7)") != std::string::npos);
}

TEST_CASE("jfp.conf: partition names keep their case; accounts and QOS are matched as slurmctld matches them") {
    auto r = parse_config("Threshold.Partition.GPU = 0.3\nthreshold.account.PROJ = 0.2\nthreshold.qos.Long = 0.1\n"
                          "exempt_accounts = ProjA, projb\nexempt_qos = Debug\nexempt_partitions = Big\n", "t");
    REQUIRE(r.ok());
    CHECK(r.config.partition_threshold.count("GPU") == 1);  // Slurm's partition names are case-sensitive
    CHECK(r.config.partition_threshold.count("gpu") == 0);
    CHECK(r.config.account_threshold.count("proj") == 1);   // slurmctld lowercases accounts
    CHECK(r.config.qos_threshold.count("long") == 1);       // and matches QOS names without case
    CHECK(r.config.exempt_accounts.count("proja") == 1);
    CHECK(r.config.exempt_qos.count("debug") == 1);
    CHECK(r.config.exempt_partitions.count("Big") == 1);
}

// A reload's log line names the settings that changed (config_changes): each name must be a key an admin
// can find in jfp.conf and in jfp.conf(5), with its value in the file's own unit.
TEST_CASE("config: every setting a reload names is a jfp.conf key, documented in jfp.conf(5)") {
    std::ifstream man(std::string(JFP_TEST_SRCDIR) + "/docs/jfp.conf.5");
    REQUIRE(man);
    const std::string text((std::istreambuf_iterator<char>(man)), std::istreambuf_iterator<char>());
    for (const auto &[key, value] : config_settings(Config{})) {
        CAPTURE(key, value);
        const auto r = parse_config(key + " = " + value + "\n", "jfp.conf");
        CHECK(r.error_text().find("unknown key") == std::string::npos);
        CHECK(text.find(key) != std::string::npos);
    }
    // Sizes read back in the unit they are written in.
    const auto mb = parse_config("user_mb_per_day = 3\nscript_archive_queue_mb = 5\nupdate_budget_ms = 2.5\n", "jfp.conf");
    REQUIRE(mb.ok());
    const auto set = config_settings(mb.config);
    CHECK(set.at("user_mb_per_day") == "3");
    CHECK(set.at("script_archive_queue_mb") == "5");
    CHECK(set.at("update_budget_ms") == "2.5");
    CHECK_FALSE(parse_config("update_budget_ms = -1\n", "jfp.conf").ok());
    CHECK_FALSE(parse_config("update_budget_ms = 1001\n", "jfp.conf").ok());
    CHECK(parse_config("update_budget_ms = 0\n", "jfp.conf").ok());
}

}  // namespace test_config
