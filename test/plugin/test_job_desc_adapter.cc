// The adapter against the job_desc_msg_t of the Slurm release it is built with: the fields that moved
// between releases, and the encodings (NO_VAL, INFINITE, MEM_PER_CPU) every release shares.
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include <cmath>
#include <cstring>
#include <string>

#include "../unit/catch.h"
#include "plugin/job_desc_adapter.h"
#include "fake_job_record.h"

extern "C" {
char *slurm_xstrdup(const char *);
void slurm_xfree(void **);
void slurm_xstrcat(char **, const char *);
void *slurm_xcalloc(size_t, size_t, bool, bool, const char *, int, const char *);
extern slurm_conf_t slurm_conf;  // libslurmfull's, which the plugin reads inside slurmctld
}

namespace {

struct Desc {
    job_desc_msg_t d;
    Desc() { slurm_init_job_desc_msg(&d); }
    ~Desc() {
        slurm_xfree(reinterpret_cast<void **>(&d.job_id_str));
        slurm_xfree(reinterpret_cast<void **>(&d.comment));
        slurm_xfree(reinterpret_cast<void **>(&d.admin_comment));
    }
    void set_numeric_id(uint32_t id) {
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
        d.step_id.job_id = id;  // 26.05 replaced job_desc_msg_t.job_id with a slurm_step_id_t
#else
        d.job_id = id;
#endif
    }
};

}  // namespace

TEST_CASE("adapter: the job an update names, on this Slurm release") {
    Desc fresh;
    CHECK(jfp_plugin::job_id_of(&fresh.d).empty());  // slurm_init_job_desc_msg: no job named

    Desc numeric;
    numeric.set_numeric_id(4242);
    CHECK(jfp_plugin::job_id_of(&numeric.d) == "4242");

    Desc text;
    text.set_numeric_id(4242);
    text.d.job_id_str = slurm_xstrdup("77_3");  // an array task named by scontrol
    CHECK(jfp_plugin::job_id_of(&text.d) == "77_3");
}

TEST_CASE("adapter: unset, unlimited and per-CPU values as every release encodes them") {
    Desc unset;
    unset.d.user_id = 1234;
    auto r = jfp_plugin::to_submit_request(&unset.d, 99);
    CHECK(r.uid == 1234);
    CHECK(std::isnan(r.time_limit_min));
    CHECK(std::isnan(r.min_cpus));
    CHECK(std::isnan(r.mem_mb));
    CHECK_FALSE(r.exclusive);
    CHECK_FALSE(r.has_script);
    CHECK(r.account.empty());

    Desc set;
    set.d.user_id = NO_VAL;  // then the submitting uid counts
    set.d.time_limit = INFINITE;
    set.d.min_cpus = 8;
    set.d.shared = JOB_SHARED_NONE;  // --exclusive
    set.d.pn_min_memory = 2048 | MEM_PER_CPU;
    r = jfp_plugin::to_submit_request(&set.d, 99);
    CHECK(r.uid == 99);
    CHECK(std::isinf(r.time_limit_min));
    CHECK(r.min_cpus == 8);
    CHECK(r.exclusive);
    CHECK(r.mem_per_cpu);
    CHECK(r.mem_mb == 2048);
}

TEST_CASE("adapter: strings handed to Slurm come from its allocator; err_msg is appended to") {
    Desc d;
    d.d.comment = slurm_xstrdup("mine");
    jfp::SubmitOutcome o;
    o.new_comment = std::string("mine jfp:p=0.500");
    o.admin_comment_append = "jfp:t=0123456789abcdef";
    o.user_message = "jfp: warning";
    o.reject = true;
    char *err = slurm_xstrdup("earlier plugin");
    CHECK(jfp_plugin::apply_outcome(&d.d, o, &err) == ESLURM_ACCESS_DENIED);
    CHECK(std::string(d.d.comment) == "mine jfp:p=0.500");
    CHECK(std::string(d.d.admin_comment) == "jfp:t=0123456789abcdef");
    CHECK(std::string(err) == "earlier plugin\njfp: warning");
    slurm_xfree(reinterpret_cast<void **>(&err));  // would abort on memory not from Slurm's allocator
}

TEST_CASE("adapter: a script's length from Slurm's allocator equals strlen, whatever built the block") {
    auto check = [](char *s) {
        CHECK(jfp_plugin::slurm_string(s).size() == std::strlen(s));
        CHECK(jfp_plugin::slurm_string(s).data() == s);
        slurm_xfree(reinterpret_cast<void **>(&s));
    };
    // As slurmctld unpacks it: a block of exactly length + 1, not cleared.
    for (size_t n : {size_t{1}, size_t{2}, size_t{15}, size_t{16}, size_t{4095}, size_t{50000}}) {
        std::string text(n, 'x');
        text[0] = '#';
        auto *b = static_cast<char *>(slurm_xcalloc(1, n + 1, false, false, __FILE__, __LINE__, __func__));
        std::memcpy(b, text.c_str(), n + 1);
        check(b);
    }
    check(slurm_xstrdup(""));
    check(slurm_xstrdup("#!/bin/bash\nsrun ./a.out\n"));
    // Grown by xstrcat: the block is larger than the string and zero-padded.
    char *grown = nullptr;
    for (int i = 0; i < 40; ++i) slurm_xstrcat(&grown, "module load x\n");
    check(grown);
    // A block larger than its string whose tail was not cleared: the byte before the end is not NUL,
    // but the last is not the terminator either.
    auto *dirty = static_cast<char *>(slurm_xcalloc(1, 64, false, false, __FILE__, __LINE__, __func__));
    std::memset(dirty, 'z', 64);
    std::memcpy(dirty, "short\0", 6);
    dirty[63] = 'z';
    check(dirty);
    // Shorter string in a cleared block: the terminator ends it, the zeros after are not counted.
    auto *padded = static_cast<char *>(slurm_xcalloc(1, 64, true, false, __FILE__, __LINE__, __func__));
    std::memcpy(padded, "echo hi", 7);
    check(padded);
    // Not from Slurm's allocator (a std::string's buffer has no magic before it): strlen.
    std::string plain(100, 'p');
    CHECK(jfp_plugin::slurm_string(plain.c_str() + 16).size() == 84);
    CHECK(jfp_plugin::slurm_string(nullptr).empty());
}

#if JFP_JOB_RECORD_LAYOUT
TEST_CASE("adapter: slurmctld's job record is read at this release's offsets, after its checks") {
    const auto &L = jfp_plugin::kJobRecordLayout;
    FakeRecord f(4321, 1007);
    char name[] = "renamed", part[] = "debug,long", account[] = "phys", comment[] = "mine jfp:p=0.1",
         admin[] = "jfp:t=0123456789abcdef", dep[] = "afterok:1", gpus[] = "gres/gpu:2", qos_name[] = "high";
    f.put(f.job, L.name, name);
    f.put(f.job, L.partition, part);
    f.put(f.job, L.account, account);
    f.put(f.job, L.comment, comment);
    f.put(f.job, L.admin_comment, admin);
    f.put(f.job, L.tres_per_node, gpus);
    f.put(f.job, L.batch_flag, uint16_t{1});
    f.put(f.job, L.time_limit, uint32_t{90});
    f.qos.name = qos_name;
    f.put(f.job, L.qos_ptr, &f.qos);
    f.put(f.details, L.d_dependency, dep);
    f.put(f.details, L.d_min_cpus, uint32_t{8});
    f.put(f.details, L.d_min_nodes, uint32_t{2});
    f.put(f.details, L.d_num_tasks, uint32_t{4});
    f.put(f.details, L.d_cpus_per_task, uint16_t{2});
    f.put(f.details, L.d_pn_min_memory, uint64_t{2000} | MEM_PER_CPU);
    jfp::JobRecordView v = jfp_plugin::read_job_record(f.record());
    REQUIRE(v.readable);
    CHECK(v.owner_uid == 1007);
    CHECK(v.job.name == "renamed");
    CHECK(v.job.partition == "debug,long");
    CHECK(v.job.account == "phys");
    CHECK(v.job.qos == "high");
    CHECK(v.job.comment == "mine jfp:p=0.1");
    CHECK(v.admin_comment == "jfp:t=0123456789abcdef");
    CHECK(v.job.dependency == "afterok:1");
    CHECK(v.job.tres_per_node == "gres/gpu:2");
    CHECK(v.job.has_script);
    CHECK(v.job.time_limit_min == 90);
    CHECK(v.job.min_cpus == 8);
    CHECK(v.job.min_nodes == 2);
    CHECK(v.job.num_tasks == 4);
    CHECK(v.job.cpus_per_task == 2);
    CHECK(v.job.mem_mb == 2000);
    CHECK(v.job.mem_per_cpu);
    // Each check refuses the record: no record, an implausible id or owner, a wrong cookie, no details or the
    // wrong details.
    CHECK_FALSE(jfp_plugin::read_job_record(nullptr).readable);
    f.put(f.job, L.job_id, uint32_t{0});
    CHECK_FALSE(jfp_plugin::read_job_record(f.record()).readable);
    f.put(f.job, L.job_id, uint32_t{NO_VAL});
    CHECK_FALSE(jfp_plugin::read_job_record(f.record()).readable);
    f.put(f.job, L.job_id, uint32_t{4321});
    f.put(f.job, L.user_id, uint32_t{NO_VAL});
    CHECK_FALSE(jfp_plugin::read_job_record(f.record()).readable);
    f.put(f.job, L.user_id, uint32_t{1007});
    CHECK(jfp_plugin::read_job_record(f.record()).readable);
    f.put(f.details, L.d_magic, uint32_t{0});
    CHECK_FALSE(jfp_plugin::read_job_record(f.record()).readable);
    f.put(f.details, L.d_magic, jfp_plugin::kDetailsMagic);
    f.put(f.job, L.details, static_cast<void *>(nullptr));
    CHECK_FALSE(jfp_plugin::read_job_record(f.record()).readable);
    f.put(f.job, L.details, static_cast<void *>(f.details));
    f.put(f.job, L.magic, uint32_t{0x12345678});
    CHECK_FALSE(jfp_plugin::read_job_record(f.record()).readable);
    // Unset numbers stay unknown; UNLIMITED is infinite.
    FakeRecord bare(5, 1);
    bare.put(bare.job, L.time_limit, uint32_t{INFINITE});
    jfp::JobRecordView b = jfp_plugin::read_job_record(bare.record());
    REQUIRE(b.readable);
    CHECK(std::isinf(b.job.time_limit_min));
    CHECK(std::isnan(b.job.min_cpus));
    CHECK(std::isnan(b.job.mem_mb));
    CHECK(b.job.name.data() == nullptr);
    CHECK_FALSE(b.job.has_script);
}
#endif
