// A site for engine tests: store, model and jfp.conf in a temporary directory, and a job to submit.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "model/runtime/engine.h"
#include "model/util/time_util.h"
#include "bundle_support.h"
#include "test_support.h"

namespace jfp::test {

// A site in a temporary directory: store, model and jfp.conf, owned by whoever runs the test.
struct Site {
    TempDir dir;
    std::string store, model, conf, slurm_conf;
    Site() {
        chmod(dir.path().c_str(), 0755);
        store = build_store(dir, 12000, 9);
        model = train_small_bundle(dir, store);
        conf = dir.file("jfp.conf");
        slurm_conf = dir.file("slurm.conf");
        write_file(slurm_conf, "PartitionName=batch Default=YES DefaultTime=60\nDefMemPerCPU=1000\n");
    }
    void config(const std::string &extra) {
        write_file(conf, "model = " + model + "\nstore = " + store + "\nreload_interval = 0\n" + extra);
    }
    EngineOptions options() const {
        EngineOptions o;
        o.config_path = conf;
        o.slurm_conf_path = slurm_conf;
        o.trusted_uids = {0, getuid()};
        o.background = false;
        return o;
    }
};

inline SubmitRequest request(const char *name = "sim", const char *comment = "") {
    SubmitRequest s;
    s.uid = 4242;
    s.name = name;
    s.comment = comment;
    s.has_script = true;
    s.script = "#!/bin/bash\n#SBATCH -n 1\nmodule load x\nsrun ./a.out\n";
    s.submit_time = *parse_sacct_time("2026-01-01T12:00:00");
    return s;
}

}  // namespace jfp::test
