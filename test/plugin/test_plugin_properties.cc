// Properties of the built plugin over random job descriptors, every field a user controls: NULs inside
// Slurm's buffers, sizes past every limit, partition lists, invalid UTF-8, C1 and bidirectional controls,
// updates by the owner and by others, updates after a restart of the plugin. Checked (issue 34):
//   1. a request's decision equals that of its normalised form (each field cut at its first NUL and at
//      slurmctld's own limit, written here from slurmctld's _test_job_desc_fields, not from jfp's code);
//   2. an update's decision equals a fresh submission of the job as it will be after the update, also after
//      the plugin restarted in between; an update by another user is not judged;
//   3. the process's memory stays within the budget docs/admin-guide.md gives;
//   4. nothing jfp says (slurmctld's log, the user's message) carries a raw control character.
// The seed is fixed (the test is red only when the code changes); JFP_PROPERTY_SEED explores others.
#include <malloc.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "../unit/catch.h"
#include "fake_job_record.h"
#include "harness_support.h"
#include "model/policy/policy.h"
#include "model/util/text.h"

extern "C" void *slurm_xcalloc(size_t, size_t, bool, bool, const char *, int, const char *);

namespace {

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
// A submission's message without its script findings (#SBATCH lines sbatch ignored), which come last.
std::string without_script_findings(const std::string &err) {
    size_t at = std::string::npos;
    for (const char *head : {"jfp: warning: sbatch ignored", "jfp: job refused: sbatch ignored"})
        at = std::min(at, err.find(head));
    if (at == std::string::npos) return err;
    std::string kept = err.substr(0, at);
    if (!kept.empty() && kept.back() == '\n') kept.pop_back();
    return kept;
}
#endif


// A job as the test describes it: each string's bytes (NULs allowed), as a client could pack them.
struct Fields {
    std::optional<std::string> name, comment, account, qos, partition, script, array_inx, work_dir, dependency,
        tres_per_node, submit_line;
    std::vector<std::string> env;
    uint32_t min_cpus = NO_VAL, num_tasks = NO_VAL, min_nodes = NO_VAL, time_limit = NO_VAL;
    uint16_t cpus_per_task = NO_VAL16;
    uint64_t mem = NO_VAL64;
};

// slurmctld's limits on each string (_test_job_desc_fields, 22.05 to 26.05), as it measures them: strlen.
std::optional<std::string> cut(const std::optional<std::string> &s, size_t limit) {
    if (!s) return s;
    std::string v = s->substr(0, s->find('\0'));
    return v.substr(0, limit);
}

Fields normalised(const Fields &f) {
    Fields n = f;
    n.name = cut(f.name, 1024);
    n.comment = cut(f.comment, 1024);
    n.account = cut(f.account, 1024);
    n.qos = cut(f.qos, 1024);
    n.partition = cut(f.partition, 1024);
    n.tres_per_node = cut(f.tres_per_node, 1024);
    n.array_inx = cut(f.array_inx, 4096);
    n.work_dir = cut(f.work_dir, 4096);
    n.dependency = cut(f.dependency, 1024);
    n.submit_line = cut(f.submit_line, 4096);
    n.script = cut(f.script, std::string::npos);
    return n;
}

// A Slurm-allocated block holding exactly these bytes and a terminator, as slurmctld unpacks a string.
char *slurm_bytes(const std::optional<std::string> &s) {
    if (!s) return nullptr;
    auto *b = static_cast<char *>(slurm_xcalloc(1, s->size() + 1, false, false, __FILE__, __LINE__, __func__));
    std::memcpy(b, s->data(), s->size());
    b[s->size()] = '\0';
    return b;
}

struct Desc {
    job_desc_msg_t d;
    char *err = nullptr;
    std::vector<char *> env;
    explicit Desc(const Fields &f, uint32_t uid) {
        slurm_init_job_desc_msg(&d);
        d.user_id = uid;
        d.name = slurm_bytes(f.name);
        d.comment = slurm_bytes(f.comment);
        d.account = slurm_bytes(f.account);
        d.qos = slurm_bytes(f.qos);
        d.partition = slurm_bytes(f.partition);
        d.script = slurm_bytes(f.script);
        d.array_inx = slurm_bytes(f.array_inx);
        d.work_dir = slurm_bytes(f.work_dir);
        d.dependency = slurm_bytes(f.dependency);
        d.tres_per_node = slurm_bytes(f.tres_per_node);
        d.submit_line = slurm_bytes(f.submit_line);
        for (const auto &e : f.env) env.push_back(slurm_bytes(e));
        if (!env.empty()) {
            d.environment = env.data();
            d.env_size = static_cast<uint32_t>(env.size());
        }
        d.min_cpus = f.min_cpus;
        d.num_tasks = f.num_tasks;
        d.min_nodes = f.min_nodes;
        d.time_limit = f.time_limit;
        d.cpus_per_task = f.cpus_per_task;
        d.pn_min_memory = f.mem;
    }
    ~Desc() {
        for (char **p : {&d.name, &d.comment, &d.admin_comment, &d.account, &d.qos, &d.partition, &d.script, &d.array_inx,
                         &d.work_dir, &d.dependency, &d.tres_per_node, &d.submit_line, &err, &d.job_id_str})
            slurm_xfree(reinterpret_cast<void **>(p));
        for (char *&e : env) slurm_xfree(reinterpret_cast<void **>(&e));
        d.environment = nullptr;
    }
    Desc(const Desc &) = delete;
    Desc &operator=(const Desc &) = delete;
};

// What jfp decided, without the parts that differ by construction (the token).
struct Outcome {
    int rc = 0;
    std::string err;
    std::string annotation;  // "p=...,class=...,model=..." or empty
    std::string facts;       // "jfp:s=..." from the admin comment, or empty
    bool operator==(const Outcome &o) const {
        return rc == o.rc && err == o.err && annotation == o.annotation && facts == o.facts;
    }
};

std::string describe(const Outcome &o) {
    return "rc=" + std::to_string(o.rc) + " err='" + o.err + "' annotation='" + o.annotation + "' facts='" + o.facts + "'";
}

// The annotation in the comment as slurmctld would keep it: a longer comment it refuses, so only what a
// job it accepts could carry is compared.
std::string annotation_of(const char *comment) {
    if (!comment) return {};
    auto a = jfp::parse_annotation(std::string(comment).substr(0, 1024));
    if (!a) return {};
    char p[32];
    std::snprintf(p, sizeof p, "%.3f", a->p);
    return std::string(p) + "," + a->cls + "," + a->model;
}

std::string facts_of(const char *admin) {
    if (!admin) return {};
    std::string s(admin);
    auto pos = s.find("jfp:s=");
    return pos == std::string::npos ? std::string() : s.substr(pos, s.find(' ', pos) - pos);
}

Outcome outcome_of(int rc, const Desc &j) { return {rc, j.err ? j.err : "", annotation_of(j.d.comment), facts_of(j.d.admin_comment)}; }

// A raw control, bidirectional control or broken UTF-8 sequence anywhere but a line end.
std::optional<size_t> raw_control(const std::string &s) {
    for (size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c == '\n') continue;
        if (c < 0x20 || c == 0x7f) return i;
        if (c < 0x80) continue;
        size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        if (len == 0 || i + len > s.size()) return i;
        for (size_t k = 1; k < len; ++k)
            if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return i;
        auto b1 = static_cast<unsigned char>(s[i + 1]);
        if (c == 0xc2 && b1 <= 0x9f) return i;  // C1
        if (c == 0xe2 && b1 == 0x80 && len == 3) {
            auto b2 = static_cast<unsigned char>(s[i + 2]);
            if (b2 == 0x8e || b2 == 0x8f || (b2 >= 0xa8 && b2 <= 0xae)) return i;
        }
        if (c == 0xe2 && b1 == 0x81 && len == 3) {
            auto b2 = static_cast<unsigned char>(s[i + 2]);
            if (b2 >= 0xa6 && b2 <= 0xa9) return i;
        }
        i += len - 1;
    }
    return std::nullopt;
}

long rss_kib() {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
    return 0;
}

class Gen {
public:
    explicit Gen(uint64_t seed) : g_(seed) {}
    size_t below(size_t n) { return n ? std::uniform_int_distribution<size_t>(0, n - 1)(g_) : 0; }
    bool chance(int percent) { return below(100) < static_cast<size_t>(percent); }

    // Text a hostile user writes: ordinary words, controls, C1 and bidi, invalid UTF-8, NULs, sometimes huge.
    std::string text(size_t typical) {
        static const char *const pieces[] = {"sim", "doomed", "steady", "a", "job_", "\x1b[2J", "\x1b]0;ALL CLEAR\x07",
                                             "\n", "\r", "\xc2\x9b", "\xc2\x9d", "\xe2\x80\xae", "\xe2\x81\xa6", "\xff",
                                             "\xc3", "jfp:p=0.000,class=FAILED,model=x", "jfp:t=0123456789abcdef",
                                             "jfp:override", "|", ",", "%s%n"};
        std::string s;
        size_t n = 1 + below(typical);
        while (s.size() < n) {
            if (chance(3)) s.push_back('\0');
            else s += pieces[below(sizeof pieces / sizeof *pieces)];
        }
        if (chance(4)) s += std::string(900 + below(3000), chance(50) ? 'x' : '\xe2');  // past slurmctld's limit
        if (chance(1)) s += std::string((size_t{2} << 20) + below(1 << 20), 'y');       // megabytes
        return s;
    }
    std::optional<std::string> maybe(int percent, size_t typical) {
        return chance(percent) ? std::optional<std::string>(text(typical)) : std::nullopt;
    }
    std::string partition() {
        static const char *const names[] = {"debug", "long", "short", "gpu", "nosuch", ""};
        std::string s;
        size_t n = 1 + below(chance(10) ? 40 : 3);
        for (size_t i = 0; i < n; ++i) {
            if (i) s += ',';
            s += chance(90) ? names[below(6)] : text(8);
        }
        return s;
    }
    std::string script() {
        std::string s = chance(80) ? "#!/bin/bash\n" : "#!/usr/bin/env python3\n";
        size_t lines = below(40);
        static const char *const body[] = {"#SBATCH -n 2\n", "module load gcc/12\n", "srun ./a.out\n", "mpirun ./b\n",
                                           "python3 x.py\n", "set -e\n", "conda activate e\n", "echo hi\n", "\x1b[31m\n"};
        for (size_t i = 0; i < lines; ++i) s += body[below(9)];
        if (chance(10)) {  // bytes after a NUL: what a hand-packed request can carry
            s.push_back('\0');
            s += std::string(below(chance(20) ? (size_t{5} << 20) : 4096), '#');
        }
        return s;
    }
    uint32_t num32() {
        switch (below(5)) {
            case 0: return NO_VAL;
            case 1: return INFINITE;
            default: return static_cast<uint32_t>(1 + below(chance(10) ? 1000000 : 64));
        }
    }

    Fields job() {
        Fields f;
        f.name = chance(90) ? std::optional<std::string>(chance(50) ? std::string(chance(50) ? "sim" : "doomed") : text(20)) : std::nullopt;
        f.comment = maybe(40, 30);
        f.account = maybe(20, 10);
        f.qos = maybe(10, 8);
        if (chance(70)) f.partition = partition();
        if (chance(85)) f.script = script();
        f.array_inx = chance(10) ? std::optional<std::string>(chance(70) ? "0-" + std::to_string(below(20000)) + "%4" : text(30))
                                 : std::nullopt;
        f.work_dir = maybe(50, 40);
        f.dependency = maybe(10, 20);
        f.tres_per_node = chance(10) ? std::optional<std::string>(chance(70) ? "gres/gpu:" + std::to_string(below(9)) : text(12))
                                     : std::nullopt;
        f.submit_line = maybe(30, 60);
        size_t envs = chance(30) ? below(chance(5) ? 20000 : 30) : 0;
        for (size_t i = 0; i < envs; ++i) f.env.push_back("V" + std::to_string(i) + "=" + text(10));
        f.min_cpus = num32();
        f.num_tasks = num32();
        f.min_nodes = num32();
        f.time_limit = num32();
        f.cpus_per_task = chance(70) ? NO_VAL16 : static_cast<uint16_t>(1 + below(16));
        if (chance(60)) f.mem = (1 + below(64000)) | (chance(50) ? MEM_PER_CPU : 0);
        return f;
    }

    // What a user's scontrol update may change of a pending job (not its script or array).
    Fields update() {
        Fields u;
        u.name.reset();
        if (chance(40)) u.name = chance(50) ? std::string(chance(50) ? "doomed" : "steady") : text(20);
        if (chance(30)) u.partition = partition();
        if (chance(15)) u.account = text(8);
        if (chance(10)) u.qos = text(6);
        if (chance(20)) u.comment = text(20);
        if (chance(15)) u.dependency = text(10);
        if (chance(30)) u.time_limit = num32();
        if (chance(15)) u.min_cpus = num32();
        if (chance(10)) u.min_nodes = num32();
        if (chance(15)) u.mem = (1 + below(64000)) | (chance(50) ? MEM_PER_CPU : 0);
        return u;
    }

private:
    std::mt19937_64 g_;
};

// The job after an update, as slurmctld applies one: every field the update gives replaces the job's.
Fields after_update(const Fields &job, const Fields &u) {
    Fields a = job;
    for (auto [from, to] : {std::pair{&u.name, &a.name}, {&u.partition, &a.partition}, {&u.account, &a.account},
                            {&u.qos, &a.qos}, {&u.comment, &a.comment}, {&u.dependency, &a.dependency}})
        if (*from) *to = *from;
    if (u.time_limit != NO_VAL) a.time_limit = u.time_limit;
    if (u.min_cpus != NO_VAL) a.min_cpus = u.min_cpus;
    if (u.min_nodes != NO_VAL) a.min_nodes = u.min_nodes;
    if (u.mem != NO_VAL64) a.mem = u.mem;
    return a;
}

// slurmctld's record of a job it accepted (so within its limits): the job's fields at this release's offsets.
struct Record {
    FakeRecord rec;
    std::string name, partition, account, comment, admin, dependency, tres;
    Record(const Fields &f, uint32_t id, uint32_t owner, const std::string &admin_comment) : rec(id, owner) {
        const auto &L = jfp_plugin::kJobRecordLayout;
        auto str = [&](unsigned char *base, size_t off, const std::optional<std::string> &v, std::string &keep) {
            if (!v) return;
            keep = *v;
            rec.put(base, off, keep.c_str());
        };
        str(rec.job, L.name, f.name, name);
        str(rec.job, L.partition, f.partition, partition);
        str(rec.job, L.account, f.account, account);
        str(rec.job, L.comment, f.comment, comment);
        str(rec.details, L.d_dependency, f.dependency, dependency);
        str(rec.job, L.tres_per_node, f.tres_per_node, tres);
        admin = admin_comment;
        rec.put(rec.job, L.admin_comment, admin.c_str());
        rec.put(rec.job, L.batch_flag, static_cast<uint16_t>(f.script ? 1 : 0));
        rec.put(rec.job, L.time_limit, f.time_limit);
        rec.put(rec.details, L.d_min_cpus, f.min_cpus);
        rec.put(rec.details, L.d_min_nodes, f.min_nodes);
        rec.put(rec.details, L.d_num_tasks, f.num_tasks);
        rec.put(rec.details, L.d_cpus_per_task, f.cpus_per_task);
        rec.put(rec.details, L.d_pn_min_memory, f.mem);
    }
};

int modify(Plugin &p, Desc &u, const job_record *rec, uint32_t uid) {
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
    return p.modify(&u.d, const_cast<job_record *>(rec), uid, &u.err);
#else
    return p.modify(&u.d, const_cast<job_record *>(rec), uid);
#endif
}

// The hour (the submit_hour feature) did not change while a pair of calls ran.
struct SameHour {
    int hour = -1;
    static int now() {
        time_t t = time(nullptr);
        struct tm tm {};
        localtime_r(&t, &tm);
        return tm.tm_hour;
    }
    SameHour() : hour(now()) {}
    bool held() const { return hour == now(); }
};

// Captures what the plugin writes to stderr (libslurmfull's log) while it lives.
struct StderrCapture {
    // Waits until the log has more than `after` lines holding `what`; returns their number.
    size_t wait_for(const char *what, size_t after) {
        for (Deadline dl(60); !dl.passed(); usleep(20000)) {
            std::fflush(stderr);
            std::ifstream in(dir.file("log"), std::ios::binary);
            std::string line;
            size_t n = 0;
            while (std::getline(in, line)) n += line.find(what) != std::string::npos;
            if (n > after) return n;
        }
        FAIL("no new '" << what << "' line in the plugin's log after 60 s");
        return 0;
    }
    jfp::test::TempDir dir;
    int saved = -1;
    StderrCapture() {
        std::fflush(stderr);
        saved = dup(2);
        FILE *f = std::fopen(dir.file("log").c_str(), "w");
        dup2(fileno(f), 2);
        std::fclose(f);
    }
    // The last n lines written so far (a failure's context).
    std::string tail(size_t n) {
        std::fflush(stderr);
        std::ifstream in(dir.file("log"), std::ios::binary);
        std::vector<std::string> lines;
        std::string line;
        while (std::getline(in, line)) lines.push_back(line);
        std::string out;
        for (size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i) out += jfp::printable(lines[i], 300) + "\n";
        return out;
    }
    std::string stop() {
        std::fflush(stderr);
        dup2(saved, 2);
        close(saved);
        saved = -1;
        std::ifstream in(dir.file("log"), std::ios::binary);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
    ~StderrCapture() {
        if (saved >= 0) stop();
    }
};

uint64_t seed() {
    const char *s = std::getenv("JFP_PROPERTY_SEED");
    return s ? std::strtoull(s, nullptr, 10) : 20261126;
}

}  // namespace

TEST_CASE("properties: random requests, their normalised forms and updates, through the plugin") {
    Site site;
    jfp::test::write_file(site.dir.file("slurm.conf"),
                          "PartitionName=debug Default=YES DefaultTime=10\nPartitionName=long DefaultTime=600 DefMemPerCPU=200\n"
                          "PartitionName=short MaxTime=30\nDefMemPerCPU=100\n");
    const uint64_t s0 = seed();
    INFO("seed " << s0 << " (JFP_PROPERTY_SEED)");
    for (const char *mode : {"annotate", "reject"}) {
        CAPTURE(mode);
        site.conf(std::string("mode = ") + mode +
                  "\nthreshold = 0.5\nthreshold.partition.long = 0.05\nthreshold.partition.short = 0.9\n"
                  "exempt_partitions = gpu\nmin_history = 0\nreject_privileged = yes\nreject_below_target = yes\n"
                  "annotate_field = comment,admin_comment\nscript_archive = " + site.dir.file("scripts.db") +
                  "\nscript_archive_env = yes\n");
        StderrCapture log;
        size_t loads = 0;
        // A plugin with its model and history loaded (the log says so): every submission after this is judged
        // the same way.
        auto start = [&] {
            auto p = std::make_unique<Plugin>();
            REQUIRE(p->init() == SLURM_SUCCESS);
            loads = log.wait_for("loaded history of", loads);
            return p;
        };
        auto plugin = start();
        malloc_trim(0);
        const long rss0 = rss_kib();
        Gen gen(s0 + (mode[0] == 'r'));
        int compared = 0, updates = 0, refused_other = 0, lists = 0;
        for (int i = 0; i < 400; ++i) {
            Fields f = gen.job();
            const uint32_t owner = 5000 + static_cast<uint32_t>(gen.below(3));
            // 1. the request and its normalised form
            // The two are scored a few microseconds apart, and time is a feature (hours since a user's last
            // job, as float): a pair may straddle a split. So a pair that differs is taken again; a rule that
            // breaks the property differs every time.
            Outcome raw, norm;
            for (int attempt = 0;; ++attempt) {
                SameHour hour;
                Desc a(f, owner), b(normalised(f), owner);
                raw = outcome_of(plugin->submit(&a.d, owner, &a.err), a);
                norm = outcome_of(plugin->submit(&b.d, owner, &b.err), b);
                if ((hour.held() && raw == norm) || attempt > 3) break;
            }
            INFO("job " << i);
            CHECK(raw == norm);
            if (!(raw == norm)) FAIL_CHECK("raw: " << describe(raw) << "\nnormalised: " << describe(norm));
            CHECK_FALSE(raw_control(raw.err));
            ++compared;

            // A partition list is judged by the strictest partition in it: refused when any one alone is,
            // and its score one of theirs.
            Fields job0 = normalised(f);
            if (job0.partition && job0.partition->find(',') != std::string::npos) {
                std::vector<std::string> entries;
                for (size_t b = 0; b <= job0.partition->size();) {
                    size_t e = job0.partition->find(',', b);
                    if (e == std::string::npos) e = job0.partition->size();
                    std::string one = job0.partition->substr(b, e - b);
                    if (!one.empty() && std::find(entries.begin(), entries.end(), one) == entries.end()) entries.push_back(one);
                    b = e + 1;
                }
                if (entries.size() > 1 && entries.size() <= 8) {
                    bool any_refused = false;
                    std::vector<std::string> scores;
                    for (const auto &one : entries) {
                        Fields alone = job0;
                        alone.partition = one;
                        Desc d(alone, owner);
                        Outcome o = outcome_of(plugin->submit(&d.d, owner, &d.err), d);
                        any_refused = any_refused || o.rc != SLURM_SUCCESS;
                        scores.push_back(o.annotation);
                    }
                    CHECK((norm.rc != SLURM_SUCCESS) == any_refused);
                    if (!norm.annotation.empty()) CHECK(std::find(scores.begin(), scores.end(), norm.annotation) != scores.end());
                    ++lists;
                }
            }

            // 2. an update of the job slurmctld accepted (its normalised form), by its owner or another user
            Fields job = normalised(f);
            Fields u = gen.update();
            bool by_owner = gen.chance(80);
            bool restart = gen.chance(3);
            // An update that changes nothing jfp reads is not judged; otherwise as a fresh submission.
            const bool judged = u.name || u.partition || u.account || u.qos || u.dependency || u.time_limit != NO_VAL ||
                                u.min_cpus != NO_VAL || u.min_nodes != NO_VAL || u.mem != NO_VAL64;
            Outcome upd, fresh;
            std::string upd_comment, fresh_comment, rec_comment;
            for (int attempt = 0;; ++attempt) {
                SameHour hour;
                Desc sub(job, owner);
                plugin->submit(&sub.d, owner, &sub.err);
                std::string admin = sub.d.admin_comment ? sub.d.admin_comment : "";
                // slurmctld keeps the comment as the plugin left it: neutralised, annotated.
                Fields recorded = job;
                if (sub.d.comment) recorded.comment = std::string(sub.d.comment);
                if (restart) {  // slurmctld restarted (or a backup took over): the plugin starts from nothing
                    plugin.reset();
                    plugin = start();
                }
                Record rec(recorded, 777, owner, admin);
                Desc ud(u, owner);  // as the user sent it: the plugin normalises it
                ud.d.job_id_str = slurm_xstrdup("777");
                // The record names the job's own comment: what the update's fresh twin is submitted with.
                upd = outcome_of(modify(*plugin, ud, rec.rec.record(), by_owner ? owner : owner + 100), ud);
                upd_comment = ud.d.comment ? jfp::printable(ud.d.comment, 300) : "(none)";
                rec_comment = jfp::printable(rec.comment, 300);
                upd.facts.clear();  // an update writes no AdminComment
                Fields merged = normalised(after_update(job, u));
                Desc fr(merged, owner);
                fresh = outcome_of(plugin->submit(&fr.d, owner, &fr.err), fr);
                fresh_comment = fr.d.comment ? jfp::printable(fr.d.comment, 300) : "(none)";
                fresh.facts.clear();
                if ((hour.held() && (!by_owner || !judged || upd == fresh)) || attempt > 3) break;
            }
            CHECK_FALSE(raw_control(upd.err));
            if (!by_owner) {
                CHECK(upd.rc == SLURM_SUCCESS);  // slurmctld decides whether another user may update it
                CHECK(upd.err.empty());
                CHECK(upd.annotation.empty());
                ++refused_other;
                continue;
            }
            if (!judged) continue;
            if (upd.rc != fresh.rc) FAIL_CHECK("update rc " << upd.rc << ", fresh rc " << fresh.rc << "; the plugin said:\n" << log.tail(12));
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
            // 22.05's job_modify has no err_msg. An update cannot change the script, so the script's own
            // findings (said at submission, last in the message) are not said again.
            CHECK(upd.err == without_script_findings(fresh.err));
#endif
            // annotate: the update's annotation is appended to the comment it sets
            if (upd.annotation != fresh.annotation)
                FAIL_CHECK("update: " << describe(upd) << "\nfresh submission: " << describe(fresh) << "\ncomments: record '"
                                      << rec_comment << "', update '" << upd_comment << "', fresh '" << fresh_comment << "'");
            ++updates;
        }
        std::string said = log.stop();
        auto bad = raw_control(said);
        CHECK_FALSE(bad);
        if (bad) FAIL_CHECK("raw control in the log at byte " << *bad << ": " << said.substr(*bad > 80 ? *bad - 80 : 0, 160));
        malloc_trim(0);
        const long rss1 = rss_kib();
        // 3. the budget: the plugin keeps nothing per job beyond its bounded queues (docs/admin-guide.md).
        CHECK(rss1 - rss0 < 64 * 1024);
        WARN(mode << ": " << compared << " requests and their normalised forms, " << lists << " partition lists, " << updates << " updates judged, "
                  << refused_other << " by other users; RSS " << rss0 << " -> " << rss1 << " KiB");
        plugin.reset();
    }
}
