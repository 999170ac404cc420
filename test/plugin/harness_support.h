// What the plugin harness's tests share: the built job_submit_jfp.so opened as slurmctld opens it, and a
// site (slurm.conf, jfp.conf, a store and a model) in a directory the plugin trusts.
#pragma once

#include <dlfcn.h>
#include <slurm/slurm.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "../unit/catch.h"
#include "../unit/bundle_support.h"
#include "../unit/test_support.h"

extern "C" {
char *slurm_xstrdup(const char *);
void slurm_xfree(void **);
}
// slurmctld's job_record_t, as the plugin and slurmctld declare it: calling job_modify through a pointer of
// another type (void *) is undefined behaviour, and UBSan's function check reports it.
struct job_record;

using init_fn = int (*)();
using submit_fn = int (*)(job_desc_msg_t *, uint32_t, char **);
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
using modify_fn = int (*)(job_desc_msg_t *, job_record *, uint32_t, char **);
#else
using modify_fn = int (*)(job_desc_msg_t *, job_record *, uint32_t);
#endif

inline namespace harness {

struct Plugin {
    void *handle = nullptr;
    init_fn init = nullptr;
    init_fn fini = nullptr;
    submit_fn submit = nullptr;
    modify_fn modify = nullptr;
    Plugin() {
        std::string so = std::string(JFP_TEST_BUILDDIR) + "/plugin/.libs/job_submit_jfp.so";
        handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) FAIL("dlopen " << so << ": " << dlerror());
        init = reinterpret_cast<init_fn>(dlsym(handle, "init"));
        fini = reinterpret_cast<init_fn>(dlsym(handle, "fini"));
        submit = reinterpret_cast<submit_fn>(dlsym(handle, "job_submit"));
        modify = reinterpret_cast<modify_fn>(dlsym(handle, "job_modify"));
        REQUIRE(init);
        REQUIRE(submit);
        REQUIRE(modify);
    }
    ~Plugin() {
        if (fini) fini();
        if (handle) dlclose(handle);
    }
};

// slurm.conf and jfp.conf in a directory the plugin trusts, with a store and a trained model.
struct Site {
    jfp::test::TempDir dir;
    std::string store, model;
    Site() {
        chmod(dir.path().c_str(), 0755);
        store = jfp::test::build_store(dir, 8000, 4);
        model = jfp::test::train_small_bundle(dir, store);
        jfp::test::write_file(dir.file("slurm.conf"), "PartitionName=debug Default=YES DefaultTime=10\nDefMemPerCPU=100\n");
        setenv("SLURM_CONF", dir.file("slurm.conf").c_str(), 1);
    }
    void conf(const std::string &text) {
        jfp::test::write_file(dir.file("jfp.conf"), "model = " + model + "\nstore = " + store +
                                                        "\nfeature_log = " + dir.file("features.db") +
                                                        "\nreload_interval = 0.05\n" + text);
    }
};

// The engine loads in the background. Waits are long: in a package build the tests run two at a time
// beside other builds, and a load that takes 50 ms alone has been slow there.
struct Deadline {
    std::chrono::steady_clock::time_point end;
    explicit Deadline(int seconds) : end(std::chrono::steady_clock::now() + std::chrono::seconds(seconds)) {}
    bool passed() const { return std::chrono::steady_clock::now() >= end; }
};

}  // namespace
