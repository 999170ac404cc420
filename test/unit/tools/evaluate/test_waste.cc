// Deciding by waste: a job's cost in the site's billing units (model/jobs/billing.h), the waste policy
// (model/policy/policy.h) and the words a user reads (model/policy/user_message.h).
#include <cmath>
#include <random>
#include <string>

#include "catch.h"
#include "model/jobs/billing.h"
#include "model/jobs/cluster_defaults.h"
#include "model/policy/policy.h"
#include "model/policy/user_message.h"
#include "tools/evaluate/waste.h"

namespace test_waste {

using namespace jfp;

namespace {
JobRequest request(double cpus, double mem_mb, double gpus, double nodes, double limit_min) {
    JobRequest r;
    r.user = "amy";
    r.partition = "batch";
    r.account = "chem";
    r.qos = "normal";
    r.name = "sim";
    r.req_cpus = cpus;
    r.req_mem_mb = mem_mb;
    r.req_gpus = gpus;
    r.req_nodes = nodes;
    r.timelimit_min = limit_min;
    return r;
}
Score score(float p) {
    Score s;
    s.p_fail = p;
    return s;
}
}  // namespace

TEST_CASE("billing: TRESBillingWeights as slurm.conf(5) gives it") {
    auto w = parse_billing_weights("CPU=1.0,Mem=0.25G,GRES/gpu=2.0");
    REQUIRE(w);
    CHECK(w->cpu == Approx(1.0));
    CHECK(w->mem_per_mb == Approx(0.25 / 1024));
    CHECK(w->gpu == Approx(2.0));
    CHECK_FALSE(w->uncounted);
    // slurm.conf(5)'s own example: 1 CPU and 8 GB bill 3.0; with MAX_TRES, 2.0.
    BillingRule rule{&*w, false};
    CHECK(billing_per_hour(request(1, 8192, 0, 1, 60), rule) == Approx(3.0));
    rule.max_tres = true;
    CHECK(billing_per_hour(request(1, 8192, 0, 1, 60), rule) == Approx(2.0));
    // The Node TRES is a node's too: inside the MAX, not added to it.
    auto nw = parse_billing_weights("CPU=1.0,Node=5");
    REQUIRE(nw);
    CHECK(billing_per_hour(request(2, 1000, 0, 1, 60), BillingRule{&*nw, true}) == Approx(5));
    CHECK(billing_per_hour(request(2, 1000, 0, 1, 60), BillingRule{&*nw, false}) == Approx(7));
    // A weight without a suffix is per MB; a suffix above MB divides it (as Slurm reads its first letter), one
    // at or below leaves it.
    CHECK(parse_billing_weights("mem=0.25")->mem_per_mb == Approx(0.25));
    CHECK(parse_billing_weights("Mem=1K")->mem_per_mb == Approx(1));
    CHECK(parse_billing_weights("Mem=1M")->mem_per_mb == Approx(1));
    CHECK(parse_billing_weights("Mem=.25GB")->mem_per_mb == Approx(0.25 / 1024));
    CHECK(parse_billing_weights("Mem=1T")->mem_per_mb == Approx(1.0 / (1024.0 * 1024)));
    CHECK(parse_billing_weights("CPU=1K")->cpu == Approx(1.0 / 1024));  // a count's base unit is one
    // Quoted, spaced, mixed case; typed GPUs bill the dearest type (jfp cannot know the type).
    auto q = parse_billing_weights("\"cpu=2, node=10,gres/gpu:a100=8,gres/gpu:v100=4\"");
    REQUIRE(q);
    CHECK(q->cpu == Approx(2));
    CHECK(q->node == Approx(10));
    CHECK(q->gpu == Approx(8));
    // A TRES jfp cannot count: the bill is then a lower bound.
    CHECK(parse_billing_weights("CPU=1,license/ansys=5")->uncounted);
    CHECK_FALSE(parse_billing_weights("CPU=1,license/ansys=0")->uncounted);
}

TEST_CASE("billing: what Slurm would refuse is refused, and said") {
    std::string err;
    CHECK_FALSE(parse_billing_weights("CPU", &err));
    CHECK(err.find("no '='") != std::string::npos);
    CHECK_FALSE(parse_billing_weights("CPU=abc", &err));
    CHECK(err.find("not a number") != std::string::npos);
    CHECK_FALSE(parse_billing_weights("CPU=2X", &err));
    CHECK(err.find("not a number") != std::string::npos);
    CHECK_FALSE(parse_billing_weights("CPU=inf", &err));
    CHECK_FALSE(parse_billing_weights("CPU=nan", &err));
}

TEST_CASE("billing: a partition's weights from slurm.conf, DEFAULT lines and MAX_TRES") {
    auto d = parse_slurm_conf("PriorityFlags=FAIR_TREE,MAX_TRES\n"
                              "PartitionName=DEFAULT TRESBillingWeights=CPU=1.0,Mem=0.5G\n"
                              "PartitionName=batch Nodes=n[1-4] Default=YES MaxTime=1-00:00:00\n"
                              "PartitionName=gpu Nodes=g1 TRESBillingWeights=CPU=1,GRES/gpu=10\n"
                              "PartitionName=broken Nodes=n1 TRESBillingWeights=CPU=x\n",
                              "/nonexistent", "test");
    CHECK(d.max_tres);
    auto batch = d.billing_rule("batch");
    REQUIRE(batch.weights);
    CHECK(batch.weights->mem_per_mb == Approx(0.5 / 1024));
    CHECK(batch.max_tres);
    CHECK(std::string(batch.unit()) == "billing-hours");
    REQUIRE(d.billing_rule("gpu").weights);
    CHECK(d.billing_rule("gpu").weights->gpu == Approx(10));
    // A value Slurm would refuse: billed by CPU, and named.
    CHECK(d.billing_rule("broken").weights == nullptr);
    CHECK(std::string(d.billing_rule("broken").unit()) == "core-hours");
    REQUIRE(d.problems.size() == 1);
    CHECK(d.problems[0].find("partition broken") != std::string::npos);
    // Unknown partition: by CPU.
    CHECK(d.billing_rule("nosuch").weights == nullptr);
    CHECK_FALSE(parse_slurm_conf("PriorityFlags=FAIR_TREE\n", "/nonexistent", "t").max_tres);
}

TEST_CASE("billing: a cost is known, bounded and never read as zero where unknown") {
    BillingRule by_cpu;
    CHECK(request_cost(request(64, 1000, 0, 2, 120), by_cpu) == Approx(128));  // 64 cores x 2 h
    CHECK(std::isnan(request_cost(request(64, 1000, 0, 2, kUnknown), by_cpu)));
    CHECK(std::isnan(request_cost(request(64, 1000, 0, 2, INFINITY), by_cpu)));  // UNLIMITED
    CHECK(std::isnan(request_cost(request(64, 1000, 0, 2, 2 * kMaxCostMinutes), by_cpu)));
    CHECK(std::isnan(request_cost(request(kUnknown, 1000, 0, 2, 60), by_cpu)));
    BillingWeights w;
    w.cpu = 1;
    w.mem_per_mb = 1.0 / 1024;
    BillingRule rule{&w, false};
    // Memory billed and unknown: unknown. Not billed: its amount does not matter.
    CHECK(std::isnan(request_cost(request(4, kUnknown, 0, 1, 60), rule)));
    w.mem_per_mb = 0;
    CHECK(request_cost(request(4, kUnknown, 0, 1, 60), rule) == Approx(4));
    // GPUs not named are none.
    w.gpu = 5;
    CHECK(request_cost(request(4, kUnknown, kUnknown, 1, 60), rule) == Approx(4));
    CHECK(request_cost(request(4, kUnknown, 2, 1, 60), rule) == Approx(14));
}

TEST_CASE("billing: OverTimeLimit is part of what a failure can waste") {
    auto d = parse_slurm_conf("OverTimeLimit=30\nPartitionName=batch Default=YES\n"
                              "PartitionName=long OverTimeLimit=UNLIMITED\nPartitionName=short OverTimeLimit=0\n",
                              "/nonexistent", "t");
    auto r = request(2, 1000, 0, 1, 60);
    CHECK(request_cost(r, d.billing_rule("batch")) == Approx(3));  // 2 cores x (60 + 30) min
    CHECK(std::isnan(request_cost(r, d.billing_rule("long"))));    // never killed: unbounded
    CHECK(request_cost(r, d.billing_rule("short")) == Approx(2));
    CHECK(request_cost(r, d.billing_rule("nosuch")) == Approx(3));
}

TEST_CASE("billing: a job with whole nodes is billed every CPU of them") {
    auto d = parse_slurm_conf("NodeName=DEFAULT Sockets=2 CoresPerSocket=16 ThreadsPerCore=1\n"
                              "NodeName=small[1-4]\nNodeName=fat1 CPUs=128\n"
                              "PartitionName=batch Nodes=small[1-4],fat1 Default=YES\n"
                              "PartitionName=whole Nodes=small[1-4] OverSubscribe=EXCLUSIVE\n"
                              "PartitionName=nonodes\n",
                              "/nonexistent", "t");
    REQUIRE(d.partition("batch")->node_cpus_max);
    CHECK(*d.partition("batch")->node_cpus_max == Approx(128));  // the largest node the job may get
    CHECK(*d.partition("whole")->node_cpus_max == Approx(32));   // Sockets x CoresPerSocket x ThreadsPerCore
    auto r = request(1, 1000, 0, 2, 60);
    CHECK(request_cost(r, d.billing_rule("batch")) == Approx(1));
    r.exclusive = true;  // --exclusive on 2 nodes: up to 2 x 128 CPUs
    CHECK(request_cost(r, d.billing_rule("batch")) == Approx(256));
    auto many = request(100, 1000, 0, kUnknown, 60);  // -n 100 --exclusive, no -N: 4 of the 32-CPU nodes
    many.exclusive = true;
    CHECK(request_cost(many, d.billing_rule("whole")) == Approx(128));
    r.exclusive = false;  // OverSubscribe=EXCLUSIVE: every job whole nodes
    CHECK(request_cost(r, d.billing_rule("whole")) == Approx(64));
    r.exclusive = true;  // node CPUs unknown: the request
    CHECK(request_cost(r, d.billing_rule("nonodes")) == Approx(1));
}

TEST_CASE("billing: memory is billed at least at what the job's runs used") {
    BillingWeights w;
    w.mem_per_mb = 1.0 / 1024;  // 1 per GiB
    BillingRule rule{&w, false};
    auto r = request(1, 1024, 0, 1, 60);
    CHECK(request_cost(r, rule) == Approx(1));
    CHECK(request_cost(r, rule, 64 * 1024.0) == Approx(64));  // asked 1 GiB, used 64: billed 64
    CHECK(request_cost(r, rule, 512.0) == Approx(1));         // used less than asked: what it asked
    CHECK(request_cost(request(1, kUnknown, 0, 1, 60), rule, 2048.0) == Approx(2));
}

TEST_CASE("billing property: cost grows with every amount asked, and is never negative") {
    std::mt19937_64 rng(46);
    std::uniform_real_distribution<double> amount(0, 5000), weight(0, 4), limit(1, 100000);
    for (int i = 0; i < 5000; ++i) {
        BillingWeights w;
        w.cpu = weight(rng);
        w.mem_per_mb = weight(rng) / 1024;
        w.gpu = weight(rng);
        w.node = weight(rng);
        BillingRule rule{&w, (i % 2) == 0};
        auto r = request(amount(rng), amount(rng) * 100, amount(rng) / 100, 1 + amount(rng) / 100, limit(rng));
        double base = request_cost(r, rule);
        REQUIRE(base >= 0);
        for (int field = 0; field < 5; ++field) {
            auto more = r;
            double *x[] = {&more.req_cpus, &more.req_mem_mb, &more.req_gpus, &more.req_nodes, &more.timelimit_min};
            *x[field] *= 1.5;
            double after = request_cost(more, rule);
            if (known(after)) REQUIRE(after >= base - 1e-9 * base);
        }
        // A memory floor never lowers a cost.
        REQUIRE(request_cost(r, rule, amount(rng) * 100) >= base - 1e-9 * base);
    }
}

TEST_CASE("waste policy: over the budget refused, a cheap likely failure warned, unbounded judged by p") {
    Config c;
    c.mode = Mode::Reject;
    c.decide_by = DecideBy::Waste;
    c.min_history = 0;
    HistoryView hv;
    hv.loaded = true;
    auto r = request(64, 1000, 0, 1, 60);
    WasteInput w;
    w.cost = 4096;
    w.bundle_budget = 500;
    Decision d;
    // p 0.3 below the threshold 0.5, but 0.3 x 4096 = 1229 >= 500: refused.
    apply_policy(c, r, hv, "", 0.5, score(0.3f), d, false, &w);
    CHECK(d.by_waste);
    CHECK_FALSE(d.above);
    CHECK(d.over_budget);
    CHECK(d.flagged);
    CHECK(d.expected_waste == Approx(0.3 * 4096).epsilon(1e-6));
    CHECK(d.action == Action::Reject);
    // Cheap: p 0.9 over the threshold, 0.9 x 2 core-hours under the budget: warned, not refused.
    w.cost = 2;
    apply_policy(c, r, hv, "", 0.5, score(0.9f), d, false, &w);
    CHECK(d.above);
    CHECK_FALSE(d.over_budget);
    CHECK(d.cheap);
    CHECK(d.action == Action::Warn);
    // Cheap and unlikely: nothing.
    apply_policy(c, r, hv, "", 0.5, score(0.1f), d, false, &w);
    CHECK(d.action == Action::None);
    CHECK_FALSE(d.flagged);
    // Unbounded cost: never cheap, judged by p alone.
    w.cost = kUnknown;
    apply_policy(c, r, hv, "", 0.5, score(0.9f), d, false, &w);
    CHECK(d.cost_unbounded);
    CHECK(d.action == Action::Reject);
    apply_policy(c, r, hv, "", 0.5, score(0.3f), d, false, &w);
    CHECK(d.action == Action::None);
    // Warn mode: flagged either way is warned.
    c.mode = Mode::Warn;
    w.cost = 4096;
    apply_policy(c, r, hv, "", 0.5, score(0.3f), d, false, &w);
    CHECK(d.action == Action::Warn);
    // No budget anywhere: judged by probability, not by waste.
    w.bundle_budget = kUnknown;
    c.mode = Mode::Reject;
    apply_policy(c, r, hv, "", 0.5, score(0.3f), d, false, &w);
    CHECK_FALSE(d.by_waste);
    CHECK(d.action == Action::None);
    // decide_by = probability ignores the cost.
    c.decide_by = DecideBy::Probability;
    w.bundle_budget = 500;
    apply_policy(c, r, hv, "", 0.5, score(0.3f), d, false, &w);
    CHECK_FALSE(d.by_waste);
    CHECK(d.action == Action::None);
}

TEST_CASE("waste policy: a model below its target precision still refuses by cost, warns by p") {
    Config c;
    c.mode = Mode::Reject;
    c.decide_by = DecideBy::Waste;
    c.min_history = 0;
    HistoryView hv;
    hv.loaded = true;
    WasteInput w;
    w.cost = 4096;
    w.bundle_budget = 500;
    Decision d;
    apply_policy(c, request(64, 1000, 0, 1, 60), hv, "", 0.5, score(0.6f), d, true, &w);
    CHECK(d.action == Action::Reject);  // guarded by the budget's own bound
    w.cost = kUnknown;
    apply_policy(c, request(64, 1000, 0, 1, 60), hv, "", 0.5, score(0.9f), d, true, &w);
    CHECK(d.action == Action::Warn);  // judged by p: the target precision guards it
    CHECK(d.below_target);
}

TEST_CASE("waste policy: budgets most specific first, jfp.conf before the bundle") {
    Config c;
    auto r = request(1, 1, 0, 1, 60);
    CHECK(std::isnan(budget_for(c, r, kUnknown)));
    CHECK(budget_for(c, r, 300) == Approx(300));
    c.waste_budget = 200;
    CHECK(budget_for(c, r, 300) == Approx(200));
    c.partition_waste_budget["batch"] = 100;
    CHECK(budget_for(c, r, 300) == Approx(100));
    c.account_waste_budget["chem"] = 50;
    CHECK(budget_for(c, r, 300) == Approx(50));
    c.qos_waste_budget["normal"] = 10;
    CHECK(budget_for(c, r, 300) == Approx(10));
}

TEST_CASE("waste policy: jfp.conf keys") {
    auto ok = parse_config("decide_by = waste\nwaste_budget = 250\nwaste_budget.partition.GPU = 1000\n"
                           "waste_budget.account.PHYS = 50\nwaste_budget.qos.Long = 5000\n",
                           "t");
    REQUIRE(ok.ok());
    CHECK(ok.config.decide_by == DecideBy::Waste);
    CHECK(*ok.config.waste_budget == Approx(250));
    CHECK(ok.config.partition_waste_budget.at("GPU") == Approx(1000));  // partition names keep their case
    CHECK(ok.config.account_waste_budget.at("phys") == Approx(50));
    CHECK(ok.config.qos_waste_budget.at("long") == Approx(5000));
    for (const char *bad : {"decide_by = cost\n", "waste_budget = 0\n", "waste_budget = -5\n", "waste_budget = nan\n",
                            "waste_budget = inf\n", "waste_budget.partition. = 5\n", "waste_budget = 5 core-hours\n"}) {
        auto r = parse_config(bad, "t");
        INFO(bad);
        CHECK_FALSE(r.ok());
    }
    CHECK(config_changes(Config{}, ok.config).find("waste_budget=250") != std::string::npos);
}

TEST_CASE("waste words: a user reads the cost, the chance as it is, and why a cheap job is not refused") {
    MessageParts m;
    m.action = Action::Reject;
    m.p_fail = 0.3;
    m.why = "your last 3 runs of 'sim' failed";
    m.what = "Check the last run's output.";
    m.by_waste = m.over_budget = true;
    m.cost = 4096;
    m.expected_waste = 1228.8;
    m.budget = 500;
    std::string s = user_message(m);
    CHECK(s.find("it asks for 4,096 core-hours") != std::string::npos);
    CHECK(s.find("an expected 1,229 core-hours lost, at or over the budget of 500") != std::string::npos);
    CHECK(s.find("chance of failing at 0.30") != std::string::npos);
    CHECK(s.find("probably") == std::string::npos);  // p 0.30 is not "probably fail"
    CHECK(s.find("your last 3 runs") != std::string::npos);
    m.action = Action::Warn;
    m.over_budget = false;
    m.cheap = true;
    m.p_fail = 0.9;
    m.cost = 2;
    m.unit = "billing-hours";
    s = user_message(m);
    CHECK(s.find("will probably fail (p=0.90") != std::string::npos);
    CHECK(s.find("It asks for 2 billing-hours, so a failure would waste little: it is not refused.") != std::string::npos);
    // Memory priced above the request is said.
    m.action = Action::Reject;
    m.over_budget = true;
    m.cheap = false;
    m.cost = 118.3;
    m.mem_priced_mb = 3000;
    CHECK(user_message(m).find("it asks for 118.3 billing-hours (its memory priced at the 3.0G its earlier runs used)") !=
          std::string::npos);
    // Never rounded to nothing; a budget as the admin wrote it.
    CHECK(amount_text(0) == "0");
    CHECK(amount_text(0.004) == "under 0.01");
    CHECK(amount_text(1.0 / 60) == "0.017");
    CHECK(amount_text(2.5) == "2.5");
    CHECK(amount_text(18.5) == "18.5");
    CHECK(amount_text(48) == "48");
    CHECK(amount_text(999.94) == "999.9");
    CHECK(amount_text(1234567) == "1,234,567");
    CHECK(amount_text(kUnknown) == "?");
}

TEST_CASE("waste property: never refused under its budget, never cheap when unbounded, words match the decision") {
    std::mt19937_64 rng(4646);
    std::uniform_real_distribution<double> u(0, 1), cost(0, 20000);
    Config c;
    c.decide_by = DecideBy::Waste;
    c.min_history = 0;
    HistoryView hv;
    hv.loaded = true;
    for (int i = 0; i < 20000; ++i) {
        c.mode = (i % 3 == 0) ? Mode::Warn : Mode::Reject;
        WasteInput w;
        w.cost = (i % 7 == 0) ? kUnknown : cost(rng) * u(rng) * u(rng);
        w.bundle_budget = 1 + cost(rng) * u(rng) * u(rng) * u(rng);
        float p = static_cast<float>(u(rng));
        double thr = u(rng);
        Decision d;
        apply_policy(c, request(1, 1, 0, 1, 60), hv, "", thr, score(p), d, false, &w);
        REQUIRE(d.by_waste);
        if (d.action == Action::Reject) {
            REQUIRE(d.over_budget);
            if (known(w.cost)) REQUIRE(static_cast<double>(p) * w.cost >= d.budget);
            else REQUIRE(p >= thr);
        }
        if (!known(w.cost)) REQUIRE_FALSE(d.cheap);
        if (d.flagged) REQUIRE((d.above || d.over_budget));
        REQUIRE((d.action != Action::None) == d.flagged);
        if (d.action == Action::Warn || d.action == Action::Reject) {
            MessageParts m;
            m.action = d.action;
            m.p_fail = p;
            m.why = "w";
            m.what = "x";
            set_waste_parts(m, d);
            std::string s = user_message(m);
            // Refused or warned for its size, a job is not said to "probably fail" when p is under a half.
            if (p < 0.5f && d.over_budget && known(w.cost)) REQUIRE(s.find("probably") == std::string::npos);
            if (d.cheap) REQUIRE(s.find("it is not refused") != std::string::npos);
            if (d.over_budget && known(w.cost)) REQUIRE(s.find(amount_text(w.cost) + " core-hours") != std::string::npos);
        }
    }
}

// ---- the waste measures (tools/evaluate/waste.h)

namespace {
WasteJob wj(float p, double cost, double burnt, int label, int64_t submit = 0) {
    WasteJob j;
    j.p = p;
    j.cost = cost;
    j.burnt = burnt;
    j.label = label;
    j.submit = submit;
    return j;
}
}  // namespace

TEST_CASE("waste measures: at the same wrongly refused count, ranking by p x cost catches the costly failures") {
    // Three cheap likely failures, one costly less likely failure, two completed jobs.
    std::vector<WasteJob> jobs = {wj(0.9f, 1, 1, 1), wj(0.8f, 1, 1, 1), wj(0.85f, 1, 0.5, 0), wj(0.4f, 1000, 900, 1),
                                  wj(0.3f, 2, 2, 0), wj(0.2f, 500, 100, 0)};
    auto by_p = cut_at_wrongly_refused(jobs, Ranking::Probability, 0.5, 1);
    // By p: 0.9 (fail), 0.85 (ok: 1 wrongly), 0.8 (fail), 0.4 (fail), then 0.3 (ok) would make 2.
    CHECK(by_p.wrongly_refused == 1);
    CHECK(by_p.failed_caught == 3);
    CHECK(by_p.burnt_caught == Approx(902));
    CHECK(by_p.burnt_failed == Approx(902));
    auto by_w = cut_at_wrongly_refused(jobs, Ranking::Waste, 0.5, 0);
    // By waste: 400 (fail), 100 (ok) stops at k = 0.
    CHECK(by_w.failed_caught == 1);
    CHECK(by_w.wrongly_refused == 0);
    CHECK(by_w.burnt_caught == Approx(900));
    CHECK(by_w.share() == Approx(900.0 / 902));
    // Ties are taken whole: two jobs at one key, one completed, do not fit k = 0.
    std::vector<WasteJob> tied = {wj(0.5f, 10, 5, 1), wj(0.5f, 10, 5, 0)};
    CHECK(cut_at_wrongly_refused(tied, Ranking::Waste, 0.9, 0).refused == 0);
    CHECK(cut_at_wrongly_refused(tied, Ranking::Waste, 0.9, 1).refused == 2);
    // Unbounded cost: refused iff p >= threshold, whatever the cut.
    std::vector<WasteJob> unb = {wj(0.95f, kUnknown, 50, 1), wj(0.3f, kUnknown, 50, 1), wj(0.5f, 10, 1, 0)};
    auto u = cut_at_wrongly_refused(unb, Ranking::Waste, 0.9, 5);
    CHECK(u.failed_caught == 1);
    CHECK(u.refused == 2);
}

TEST_CASE("waste measures: the Poisson upper bound") {
    // Exact one-sided 95% upper bounds: k=0 2.996, k=1 4.744, k=5 10.51, k=20 29.06, k=100 117.6.
    std::pair<size_t, double> exact[] = {{0, 2.996}, {1, 4.744}, {5, 10.51}, {20, 29.06}, {100, 117.6}};
    for (auto [k, v] : exact) CHECK(poisson_upper(k) == Approx(v).epsilon(0.02));
    for (size_t k = 0; k < 200; ++k) REQUIRE(poisson_upper(k + 1) > poisson_upper(k));
}

TEST_CASE("waste measures: the budget holds the limit on the whole window and on each half") {
    // Four weeks; completed jobs with expected waste 100 in the first half only.
    std::vector<WasteJob> jobs;
    const int64_t week = 7 * 86400;
    for (int i = 0; i < 400; ++i) {
        int64_t t = static_cast<int64_t>(i) * 4 * week / 400;
        bool first_half = i < 200;
        // A costly failure every 10th job; a costly completed job every 20th in the first half.
        if (i % 10 == 0) jobs.push_back(wj(0.5f, 400, 300, 1, t));
        else if (first_half && i % 20 == 5) jobs.push_back(wj(0.5f, 200, 200, 0, t));
        else jobs.push_back(wj(0.1f, 10, 10, 0, t));
    }
    // A generous limit: the budget reaches down to the costly completed jobs' 100.
    auto loose = choose_budget(jobs, 0.9, 50);
    REQUIRE(loose.limit_met);
    CHECK(loose.budget <= 100);
    // A limit of 3 a week: 10 completed in the first half (2 weeks) is 5 a week there; the budget must stay
    // above them, at the failures' 200, although the whole window averages 2.5 a week.
    auto tight = choose_budget(jobs, 0.9, 3);
    REQUIRE(tight.limit_met);
    CHECK(tight.budget == Approx(200));
    CHECK(tight.at_budget.wrongly_refused == 0);
    CHECK(tight.at_budget.failed_caught == 40);
    CHECK(tight.per_week_upper <= 3);
    // A limit no budget can keep (unbounded completed jobs above the threshold are refused whatever it is).
    std::vector<WasteJob> hopeless;
    for (int i = 0; i < 100; ++i) hopeless.push_back(wj(0.95f, kUnknown, 1, 0, static_cast<int64_t>(i) * 3600));
    auto none = choose_budget(hopeless, 0.9, 1);
    CHECK_FALSE(none.limit_met);
    CHECK(std::isnan(none.budget));
}

TEST_CASE("waste measures property: a budget's refusals never exceed the limit's bound, and lowering the limit never lowers the budget") {
    std::mt19937_64 rng(77);
    std::uniform_real_distribution<double> u(0, 1);
    for (int round = 0; round < 60; ++round) {
        std::vector<WasteJob> jobs;
        size_t n = 50 + static_cast<size_t>(u(rng) * 400);
        for (size_t i = 0; i < n; ++i)
            jobs.push_back(wj(static_cast<float>(u(rng)), u(rng) < 0.05 ? kUnknown : 1 + u(rng) * 1000, u(rng) * 100,
                              u(rng) < 0.2, static_cast<int64_t>(i) * 1800));
        double prev = 0;
        for (double limit : {200.0, 50.0, 10.0, 3.0}) {
            auto c = choose_budget(jobs, 0.95, limit);
            if (!c.limit_met) {
                prev = INFINITY;
                continue;
            }
            REQUIRE(c.per_week_upper <= limit + 1e-9);
            REQUIRE(c.budget >= prev);
            prev = c.budget;
        }
    }
}

}  // namespace test_waste
