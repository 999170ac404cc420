#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "catch.h"
#include "test_support.h"
#include "model/jobs/cluster_defaults.h"
#include "model/policy/policy.h"
#include "model/request/submit_request.h"
#include "model/util/time_util.h"

namespace test_policy {

using namespace jfp;

namespace {
JobRequest job(const char *user = "amy", const char *partition = "batch", const char *account = "chem",
               const char *qos = "normal") {
    JobRequest r;
    r.user = user;
    r.partition = partition;
    r.account = account;
    r.qos = qos;
    r.name = "sim";
    return r;
}
Score score(float p, int cls = 0) {
    Score s;
    s.p_fail = p;
    s.top_class = cls;
    return s;
}
HistoryStats runs(uint32_t n) {
    HistoryStats h;
    h.n = n;
    return h;
}
}  // namespace

TEST_CASE("policy: thresholds, most specific first") {
    Config c;
    CHECK(threshold_for(c, job(), 0.7) == Approx(0.7));
    c.threshold = 0.8;
    CHECK(threshold_for(c, job(), 0.7) == Approx(0.8));
    c.partition_threshold["batch"] = 0.85;
    CHECK(threshold_for(c, job(), 0.7) == Approx(0.85));
    c.account_threshold["chem"] = 0.9;
    CHECK(threshold_for(c, job(), 0.7) == Approx(0.9));
    c.qos_threshold["normal"] = 0.95;
    CHECK(threshold_for(c, job(), 0.7) == Approx(0.95));
    CHECK(threshold_for(c, job("amy", "gpu", "phys", "high"), 0.7) == Approx(0.8));
}

TEST_CASE("policy: modes") {
    Config c;
    HistoryStats h = runs(5);
    HistoryView hv;
    hv.user_name = &h;
    hv.loaded = true;
    auto decide = [&](Mode m, float p, const char *comment = "") {
        c.mode = m;
        Decision d;
        apply_policy(c, job(), hv, comment, 0.5, score(p), d);
        return d;
    };
    CHECK(decide(Mode::Shadow, 0.9).action == Action::None);
    CHECK(decide(Mode::Shadow, 0.9).above);
    CHECK(decide(Mode::Annotate, 0.1).action == Action::Annotate);
    CHECK(decide(Mode::Warn, 0.4).action == Action::None);
    CHECK(decide(Mode::Warn, 0.6).action == Action::Warn);
    CHECK(decide(Mode::Reject, 0.4).action == Action::None);
    CHECK(decide(Mode::Reject, 0.6).action == Action::Reject);
    CHECK(decide(Mode::Reject, 0.5).action == Action::Reject);  // at the threshold counts
}

TEST_CASE("policy: exemptions, min_history and the override token") {
    Config c;
    c.mode = Mode::Reject;
    HistoryStats h = runs(3);
    HistoryView hv;
    hv.user_name = &h;
    hv.loaded = true;
    Decision d;
    c.exempt_users = {"amy"};
    apply_policy(c, job(), hv, "", 0.5, score(0.99), d);
    CHECK(d.exempt);
    CHECK(d.action == Action::None);
    c.exempt_users.clear();
    c.exempt_partitions = {"batch"};
    apply_policy(c, job(), hv, "", 0.5, score(0.99), d);
    CHECK(d.action == Action::None);
    c.exempt_partitions.clear();
    c.exempt_accounts = {"chem"};
    apply_policy(c, job(), hv, "", 0.5, score(0.99), d);
    CHECK(d.action == Action::None);
    c.exempt_accounts.clear();
    c.exempt_qos = {"normal"};
    apply_policy(c, job(), hv, "", 0.5, score(0.99), d);
    CHECK(d.action == Action::None);
    c.exempt_qos.clear();

    c.min_history = 4;  // 3 prior runs: not enough to reject, the user is warned
    apply_policy(c, job(), hv, "", 0.5, score(0.99), d);
    CHECK(d.below_min_history);
    CHECK(d.action == Action::Warn);
    c.min_history = 1;
    HistoryView none;  // a loaded history with no run of this job
    none.loaded = true;
    apply_policy(c, job(), none, "", 0.5, score(0.99), d);
    CHECK(d.action == Action::Warn);  // a first run is never rejected by default
    c.min_history = 0;
    apply_policy(c, job(), none, "", 0.5, score(0.99), d);
    CHECK(d.action == Action::Reject);
    CHECK_FALSE(d.no_history);
    // A model that missed its target precision warns where it would reject, unless the admin insists.
    apply_policy(c, job(), none, "", 0.5, score(0.99), d, true);
    CHECK(d.action == Action::Warn);
    CHECK(d.below_target);
    c.reject_below_target = true;
    apply_policy(c, job(), none, "", 0.5, score(0.99), d, true);
    CHECK(d.action == Action::Reject);
    CHECK_FALSE(d.below_target);
    c.reject_below_target = false;
    HistoryView unavailable;  // the store is missing or failing: even min_history = 0 does not reject
    apply_policy(c, job(), unavailable, "", 0.5, score(0.99), d);
    CHECK(d.action == Action::Warn);
    CHECK(d.no_history);

    c.allow_override = false;
    apply_policy(c, job(), hv, "please jfp:override", 0.5, score(0.99), d);
    CHECK(d.action == Action::Reject);  // not enabled: ignored
    c.allow_override = true;
    apply_policy(c, job(), hv, "please jfp:override", 0.5, score(0.99), d);
    CHECK(d.override_used);
    CHECK(d.action == Action::Warn);
    apply_policy(c, job(), hv, "jfp:overrides", 0.5, score(0.99), d);
    CHECK(d.action == Action::Reject);  // a whole word only
}

TEST_CASE("annotation: format, parse back, fit into 1024 characters") {
    std::string a = format_annotation(0.8734f, 1, "20240301T020000-1a2b3c4d", false);
    CHECK(a == "jfp:p=0.873,class=TIMEOUT,model=20240301T020000-1a2b3c4d");
    auto p = parse_annotation("my words " + a);
    REQUIRE(p);
    CHECK(p->p == Approx(0.873));
    CHECK(p->cls == "TIMEOUT");
    CHECK(p->model == "20240301T020000-1a2b3c4d");
    CHECK(format_annotation(0.5f, 0, "m", true) == "jfp:p=0.500,class=FAILED,model=m,override");
    // Below the threshold no class is claimed (class=FAILED at p=0.18 read as "it will fail").
    std::string below = format_annotation(0.18f, -1, "m", false);
    CHECK(below == "jfp:p=0.180,model=m");
    auto pb = parse_annotation(below);
    REQUIRE(pb);
    CHECK(pb->cls.empty());
    CHECK(pb->model == "m");

    CHECK(*append_annotation("", a) == a);
    CHECK(*append_annotation("user text", a) == "user text " + a);
    std::string long_comment(1024 - 30, 'x');  // room for the short form only
    auto shorter = append_annotation(long_comment, a);
    REQUIRE(shorter);
    CHECK(shorter->size() <= 1024);
    CHECK(shorter->find("jfp:p=0.873,class=TIMEOUT") != std::string::npos);
    CHECK(shorter->substr(0, long_comment.size()) == long_comment);  // the user's text is untouched
    CHECK_FALSE(append_annotation(std::string(1020, 'x'), a));
}

TEST_CASE("annotation: the probability has the digits of printf's %.3f, ties and edges included") {
    // format_annotation uses to_chars on the submit path; sacct readers and tests expect printf's digits.
    std::vector<float> ps = {0.0f, 1.0f, 0.0005f, 0.0015f, 0.9995f, 0.0625f, 0.1875f, 0.3125f, 0.4375f, 0.5f,
                             std::nextafter(0.0005f, 1.0f), std::nextafter(0.0005f, 0.0f), 1e-30f};
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int i = 0; i < 20000; ++i) ps.push_back(u(rng));
    for (int k = 0; k <= 4096; ++k) ps.push_back(static_cast<float>(k) / 4096.0f);  // exact binary ties
    size_t differ = 0;
    for (float p : ps) {
        char want[32];
        std::snprintf(want, sizeof want, "jfp:p=%.3f,", static_cast<double>(p));
        if (format_annotation(p, 0, "m", false).rfind(want, 0) != 0) ++differ;
    }
    CHECK(differ == 0);
}

TEST_CASE("annotation: user text that imitates it is neutralised, other text is not") {
    CHECK_FALSE(neutralize("an ordinary comment"));
    CHECK_FALSE(neutralize("jfp:override"));
    CHECK(*neutralize("jfp:p=0.01,class=FAILED,model=x") == "jfp;p=0.01,class=FAILED,model=x");
    CHECK(*neutralize("a jfp:t=deadbeef b jfp:p=1") == "a jfp;t=deadbeef b jfp;p=1");
    auto n = neutralize("fake jfp:p=0.01");
    CHECK_FALSE(parse_annotation(*n));
}

TEST_CASE("slurm.conf: default partition, DefaultTime/MaxTime and memory defaults") {
    auto d = parse_slurm_conf(R"(
ClusterName=c
DefMemPerCPU=1000
PartitionName=DEFAULT DefMemPerCPU=2000
PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=30 DefaultTime=10 State=UP
PartitionName=long Nodes=n[1-2] MaxTime=7-00:00:00
PartitionName=big Nodes=n3 DefMemPerNode=64000 MaxTime=INFINITE # comment
)", "/etc/slurm", "slurm.conf");
    CHECK(d.default_partition == "debug");
    REQUIRE(d.partition("debug"));
    CHECK(*d.partition("debug")->default_time_min == 10);
    CHECK(*d.partition("debug")->def_mem_per_cpu_mb == 2000);  // from the DEFAULT line
    CHECK(*d.partition("long")->default_time_min == 7 * 24 * 60);  // no DefaultTime: MaxTime
    CHECK(std::isinf(*d.partition("big")->default_time_min));
    CHECK(*d.partition("big")->def_mem_per_node_mb == 64000);
    CHECK(*d.def_mem_per_cpu_mb == 1000);
    CHECK(d.partition("none") == nullptr);
    CHECK(*parse_slurm_time_minutes("30") == 30);
    CHECK(*parse_slurm_time_minutes("1-12") == 36 * 60);
    CHECK(*parse_slurm_time_minutes("2:30") == Approx(2.5));
    CHECK(*parse_slurm_time_minutes("01:00:00") == 60);
}

TEST_CASE("slurm.conf: no memory default anywhere: a job gets its partition's first node's memory") {
    auto d = parse_slurm_conf(R"(
NodeName=DEFAULT RealMemory=4000
NodeName=small[1-2] MemSpecLimit=500
NodeName=big[01-04] RealMemory=64000
NodeName=bare
PartitionName=debug Nodes=small[1-2],big[01-04] Default=YES
PartitionName=large Nodes=big[02-03]
PartitionName=everything Nodes=ALL
PartitionName=later Nodes=gpu1
PartitionName=odd Nodes=n[1-
NodeName=gpu1 RealMemory=256000
)", ".", "slurm.conf");
    CHECK(*d.partition("debug")->node_mem_mb == 3500);     // small1: DEFAULT's RealMemory less MemSpecLimit
    CHECK(*d.partition("large")->node_mem_mb == 64000);
    CHECK(*d.partition("everything")->node_mem_mb == 3500);
    CHECK(*d.partition("later")->node_mem_mb == 256000);   // its node defined after the partition
    CHECK_FALSE(d.partition("odd")->node_mem_mb);           // a hostlist it cannot read: unknown
    SubmitRequest s;
    s.has_script = true;
    s.min_nodes = 2;
    JobRequest r = resolve_request(s, "amy", d, nullptr);
    CHECK(r.partition == "debug");
    CHECK(r.req_mem_mb == 7000);  // per node, as sacct's ReqMem
    // Any DefMemPer* wins over the node's memory.
    auto with_default = parse_slurm_conf("NodeName=n1 RealMemory=8000\nPartitionName=p Nodes=n1 Default=YES\nDefMemPerCPU=100\n", ".", "c");
    CHECK(resolve_request(SubmitRequest{}, "amy", with_default, nullptr).req_mem_mb == 100);
    auto none = parse_slurm_conf("NodeName=n1 RealMemory=8000\nPartitionName=p Nodes=n1 Default=YES\n", ".", "c");
    CHECK(resolve_request(SubmitRequest{}, "amy", none, nullptr).req_mem_mb == 8000);
}

TEST_CASE("slurm.conf: Include lines are followed and listed, so that a change to one is seen") {
    test::TempDir dir;
    test::write_file(dir.file("parts.conf"), "PartitionName=p Default=YES DefaultTime=30\n");
    test::write_file(dir.file("slurm.conf"), "ClusterName=c\nInclude parts.conf\ninclude /nonexistent/x.conf\n");
    std::string err;
    auto d = load_slurm_conf(dir.file("slurm.conf"), &err);
    CHECK(err.empty());
    CHECK(d.default_partition == "p");
    REQUIRE(d.included.size() == 2);
    CHECK(d.included[0] == dir.file("parts.conf"));
    CHECK(d.included[1] == "/nonexistent/x.conf");  // listed too: its appearing is a change
}

TEST_CASE("submit request: unset values resolve to what slurmctld applies (and sacct shows)") {
    auto d = parse_slurm_conf("PartitionName=debug Default=YES DefaultTime=10 MaxTime=60\n"
                              "PartitionName=gpu DefMemPerCPU=4000 MaxTime=INFINITE\nDefMemPerCPU=100\n",
                              ".", "slurm.conf");
    HistorySnapshot h;
    h.last_account["amy"].value = "chem";
    h.last_qos["amy"].value = "high";
    SubmitRequest s;
    s.has_script = true;
    s.script = "#!/bin/bash\nsrun x\n";
    s.submit_time = 1000;
    JobRequest r = resolve_request(s, "amy", d, &h);
    CHECK(r.partition == "debug");
    CHECK(r.account == "chem");
    CHECK(r.qos == "high");
    CHECK(r.req_cpus == 1);
    CHECK(r.req_nodes == 1);
    CHECK(r.timelimit_min == 10);
    CHECK(r.req_mem_mb == 100);
    CHECK(r.interactive == 0);
    CHECK(r.has_dependency == 0);
    CHECK(r.array_size == 1);
    CHECK(r.req_gpus == 0);

    s.partition = "gpu,debug";
    s.num_tasks = 4;
    s.cpus_per_task = 2;
    s.min_nodes = 2;
    s.tres_per_node = "gres:gpu:2";
    s.array_inx = "1-10%2";
    s.dependency = "afterok:12";
    s.has_script = false;
    r = resolve_request(s, "amy", d, &h);
    CHECK(r.partition == "gpu");
    CHECK(r.req_cpus == 8);
    CHECK(r.req_mem_mb == 32000);  // DefMemPerCPU of gpu x 8 CPUs
    CHECK(std::isinf(r.timelimit_min));
    CHECK(r.req_gpus == 4);
    CHECK(r.array_size == 10);
    CHECK(r.has_dependency == 1);
    CHECK(r.interactive == 1);

    s.mem_mb = 3000;
    s.mem_per_cpu = false;
    s.time_limit_min = 45;
    s.account = "phys";
    r = resolve_request(s, "amy", d, &h);
    CHECK(r.req_mem_mb == 6000);  // per node x 2 nodes
    CHECK(r.timelimit_min == 45);
    CHECK(r.account == "phys");
    s.mem_per_cpu = true;
    r = resolve_request(s, "amy", d, &h);
    CHECK(r.req_mem_mb == 24000);  // per CPU x 8 CPUs
}

TEST_CASE("policy: root's and SlurmUser's jobs are warned where others are rejected, unless reject_privileged") {
    Config c;
    c.mode = Mode::Reject;
    HistoryStats h = runs(3);
    HistoryView hv;
    hv.user_name = &h;
    hv.loaded = true;
    JobRequest r = job();
    Decision d;
    apply_policy(c, r, hv, "", 0.5, score(0.99), d);
    CHECK(d.action == Action::Reject);  // an ordinary user
    r.privileged = true;
    apply_policy(c, r, hv, "", 0.5, score(0.99), d);
    CHECK(d.action == Action::Warn);
    CHECK(d.privileged);
    apply_policy(c, r, hv, "", 0.5, score(0.1), d);
    CHECK(d.action == Action::None);  // below the threshold: nothing to say
    c.reject_privileged = true;
    apply_policy(c, r, hv, "", 0.5, score(0.99), d);
    CHECK(d.action == Action::Reject);
    CHECK_FALSE(d.privileged);
    CHECK(parse_config("reject_privileged = yes\n", "jfp.conf").config.reject_privileged);
    CHECK_FALSE(parse_config("", "jfp.conf").config.reject_privileged);
}

}  // namespace test_policy
