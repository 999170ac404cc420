// job_submit/jfp: the Slurm-facing shim. Every entry point catches everything: no C++ exception may
// reach slurmctld, and any internal fault lets the job through unchanged with one rate-limited log line.
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include <cstring>
#include <exception>
#include <string>

#include "model/config.h"
#include "model/log.h"
#include "slurm_glue.h"

struct job_record;  // slurmctld-internal; we only pass the pointer through

// The core is built with hidden visibility; these are the only symbols slurmctld may see.
#define JFP_EXPORT __attribute__((visibility("default")))

extern "C" {
JFP_EXPORT extern const char plugin_name[] = "Job failure prediction (jfp)";
JFP_EXPORT extern const char plugin_type[] = "job_submit/jfp";
JFP_EXPORT extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;
}

namespace {

void slurm_sink(jfp::LogLevel level, const char *message) {
    switch (level) {
        case jfp::LogLevel::Error: slurm_error("%s: %s", plugin_type, message); break;
        case jfp::LogLevel::Warning:
        case jfp::LogLevel::Info: slurm_info("%s: %s", plugin_type, message); break;
        case jfp::LogLevel::Debug: slurm_debug("%s: %s", plugin_type, message); break;
    }
}

jfp::RateLimitedLog g_fault_log(60);

void log_fault(const char *where, const char *what) {
    g_fault_log.log(jfp::LogLevel::Error, std::string(where) + ": internal fault, job let through unchanged: " + what);
}

std::string extra_conf_path(const char *name) {
    std::string file(name);
    char *p = slurm_get_extra_conf_path(file.data());
    std::string out = p ? p : "";
    slurm_xfree(reinterpret_cast<void **>(&p));
    return out;
}

}  // namespace

extern "C" JFP_EXPORT int init(void) {
    try {
        jfp::set_log_sink(slurm_sink);
        std::string conf_path = extra_conf_path("jfp.conf");
        jfp::Config cfg;
        std::string conf_state;
        if (access(conf_path.c_str(), F_OK) != 0) {
            cfg.mode = jfp::Mode::Off;
            conf_state = "missing, plugin is off";
        } else {
            auto r = jfp::load_config_file(conf_path);
            if (r.ok()) {
                cfg = r.config;
                conf_state = "loaded";
            } else {
                cfg.mode = jfp::Mode::Off;
                conf_state = "invalid, plugin is off: " + r.error_text();
            }
        }
        std::string model_state = access(cfg.model_path.c_str(), R_OK) == 0 ? "present" : "missing";
        jfp::log_info("init: config=" + conf_path + " (" + conf_state + ") model=" + cfg.model_path + " (" +
                      model_state + ") mode=" + jfp::mode_name(cfg.mode));
    } catch (const std::exception &e) {
        log_fault("init", e.what());
    } catch (...) {
        log_fault("init", "unknown exception");
    }
    return SLURM_SUCCESS;  // a broken jfp must never stop slurmctld from starting
}

extern "C" JFP_EXPORT int fini(void) {
    return SLURM_SUCCESS;
}

extern "C" JFP_EXPORT int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg) {
    (void)job_desc;
    (void)submit_uid;
    (void)err_msg;
    return SLURM_SUCCESS;
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
extern "C" JFP_EXPORT int job_modify(job_desc_msg_t *job_desc, job_record *job_ptr, uint32_t submit_uid, char **err_msg) {
    (void)err_msg;
#else
extern "C" JFP_EXPORT int job_modify(job_desc_msg_t *job_desc, job_record *job_ptr, uint32_t submit_uid) {
#endif
    (void)job_desc;
    (void)job_ptr;
    (void)submit_uid;
    return SLURM_SUCCESS;
}
