// The adapter against the job_desc_msg_t of the Slurm release it is built with: the fields that moved
// between releases, and the encodings (NO_VAL, INFINITE, MEM_PER_CPU) every release shares.
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include <cmath>
#include <cstring>
#include <string>

#include "../unit/catch.h"
#include "plugin/job_desc_adapter.h"

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
    CHECK_FALSE(r.has_script);
    CHECK(r.account.empty());

    Desc set;
    set.d.user_id = NO_VAL;  // then the submitting uid counts
    set.d.time_limit = INFINITE;
    set.d.min_cpus = 8;
    set.d.pn_min_memory = 2048 | MEM_PER_CPU;
    r = jfp_plugin::to_submit_request(&set.d, 99);
    CHECK(r.uid == 99);
    CHECK(std::isinf(r.time_limit_min));
    CHECK(r.min_cpus == 8);
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

TEST_CASE("adapter: a job slurmctld refuses itself after job_submit is recognised, and only such a job") {
    Desc j;
    std::string name1024(1024, 'n'), name1025(1025, 'n'), comment1025(1025, 'c');
    j.d.name = name1024.data();
    CHECK(jfp_plugin::slurm_refusal(&j.d, "#!/bin/sh\n") == nullptr);
    j.d.name = name1025.data();
    CHECK_THAT(jfp_plugin::slurm_refusal(&j.d, ""), HasText("job name longer than 1024"));
    j.d.name = nullptr;
    j.d.comment = slurm_xstrdup(comment1025.c_str());
    CHECK_THAT(jfp_plugin::slurm_refusal(&j.d, ""), HasText("comment longer than 1024"));
    slurm_xfree(reinterpret_cast<void **>(&j.d.comment));

    std::string script(size_t{4} << 20, '#');  // Slurm's default max_script_size, 4 MiB: accepted
    CHECK(jfp_plugin::slurm_refusal(&j.d, script) == nullptr);
    script += '\n';
    CHECK_THAT(jfp_plugin::slurm_refusal(&j.d, script), HasText("max_script_size"));
    char *saved_params = slurm_conf.sched_params;
    char params[] = "bf_continue,max_script_size=10000000";
    slurm_conf.sched_params = params;
    CHECK(jfp_plugin::slurm_refusal(&j.d, script) == nullptr);  // the site raised it
    slurm_conf.sched_params = saved_params;

    uint32_t saved_max = slurm_conf.max_array_sz;
    slurm_conf.max_array_sz = 1001;  // slurm.conf's default MaxArraySize
    auto array = [&](const char *spec) {
        std::string s(spec);
        j.d.array_inx = s.data();
        const char *why = jfp_plugin::slurm_refusal(&j.d, "");
        j.d.array_inx = nullptr;
        return why != nullptr;
    };
    CHECK_FALSE(array("0-1000"));
    CHECK(array("0-1001"));
    CHECK(array("0-9999%10"));
    CHECK_FALSE(array("0-1000%9999"));  // the limit after % is how many run at once
    CHECK_FALSE(array("1,3,5-7:2"));
    CHECK_FALSE(array("0-999:5000"));   // a step is no index
    CHECK(array("7,1001"));
    slurm_conf.max_array_sz = saved_max;
}
