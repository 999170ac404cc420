// job_submit/jfp: the Slurm-facing shim. Every entry point catches everything: no C++ exception may
// reach slurmctld, and any internal fault lets the job through unchanged with one rate-limited log line.
// All logic lives in model/ (jfp::Engine); this file only translates.
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <exception>
#include <string>

#include "jfp_config.h"
#include "job_desc_adapter.h"
#include "update_comment.h"
#include "model/files/file_check.h"
#include "model/runtime/engine.h"
#include "model/util/log.h"
#include "slurm_glue.h"

struct job_record;  // slurmctld-internal; we only pass the pointer through

// The core is built with hidden visibility; these are the only symbols slurmctld may see.
#define JFP_EXPORT __attribute__((visibility("default")))

extern "C" {
JFP_EXPORT extern const char plugin_name[] = "Job failure prediction (jfp)";
JFP_EXPORT extern const char plugin_type[] = "job_submit/jfp";
JFP_EXPORT extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;
// What `jfp check` reads from the file to compare with the installed slurmctld (slurmctld refuses a plugin of
// another release, in its log only).
extern const char jfp_build_marker[];
__attribute__((used)) const char jfp_build_marker[] = "jfp-built-for-slurm=" JFP_SLURM_VERSION ";";
}

namespace {

std::atomic<jfp::Engine *> g_engine{nullptr};

void slurm_sink(jfp::LogLevel level, const char *message) {
    switch (level) {
        case jfp::LogLevel::Error: slurm_error("%s: %s", plugin_type, message); break;
        case jfp::LogLevel::Warning:
        case jfp::LogLevel::Info: slurm_info("%s: %s", plugin_type, message); break;
        case jfp::LogLevel::Debug: slurm_debug("%s: %s", plugin_type, message); break;
    }
}

// slurmctld's log level (scontrol setdebug changes it at run time). Weak: not in Slurm's public headers,
// so if a release drops it the plugin still loads and keeps formatting its debug lines.
extern "C" int slurm_get_log_level(void) __attribute__((weak));
constexpr int kSlurmLogLevelDebug = 5;  // LOG_LEVEL_DEBUG in src/common/log.h
bool slurm_debug_enabled() { return !slurm_get_log_level || slurm_get_log_level() >= kSlurmLogLevelDebug; }

jfp::RateLimitedLog g_fault_log(60);

void log_fault(const char *where, const char *what) {
    if (jfp::Engine *e = g_engine.load()) e->count_fault();
    g_fault_log.log(jfp::LogLevel::Error,
                    std::string(where) + ": internal fault, job let through unchanged: " + what);
}

// slurmctld calls exit() without fini on a stop (SIGTERM) or on giving control to a backup: the rows and
// scripts still queued are written first, for 2 s at most. (glibc runs an atexit handler of a library at
// its dlclose too; fini has removed the engine by then.) Not in a child slurmctld forked: it has no writer
// threads. The engine is created and removed under g_engine_mu: exit may run while another thread is in
// init or fini. A static object, destroyed after flush_at_exit runs (handlers run in reverse order of
// registration, and this one is registered first, when the library loads); not leaked per dlopen.
std::timed_mutex g_engine_mu;
pid_t g_init_pid = 0;

void flush_at_exit() {
    try {
        if (::getpid() != g_init_pid || !g_engine_mu.try_lock_for(std::chrono::milliseconds(500))) return;
        std::lock_guard<std::timed_mutex> lk(g_engine_mu, std::adopt_lock);
        if (jfp::Engine *e = g_engine.load()) {
            if (!e->flush_for_exit(std::chrono::milliseconds(2000)))
                jfp::log_error("exit: the feature log or script archive was not written within 2 s; what was queued is lost");
            // Then no jfp thread may run while exit() destroys static objects: one waking then would use
            // what is being destroyed.
            if (!e->stop_threads_for_exit(std::chrono::milliseconds(500)))
                jfp::log_error("exit: a jfp thread did not end within 0.5 s (a file system not answering?); left running");
        }
    } catch (...) {
    }
}

std::string extra_conf_path(const char *name) {
    std::string file(name);
    char *p = slurm_get_extra_conf_path(file.data());
    std::string out = p ? p : "";
    slurm_xfree(reinterpret_cast<void **>(&p));
    return out;
}

std::string slurm_conf_path(const std::string &jfp_conf) {
    if (slurm_conf.slurm_conf && *slurm_conf.slurm_conf) return slurm_conf.slurm_conf;
    if (const char *env = std::getenv("SLURM_CONF")) return env;
    return jfp::path_beside(jfp_conf, "slurm.conf");
}

// Which file slurmctld loaded and which release it was built for: the first things to check when a
// Slurm upgrade and a jfp build disagree (docs/admin-guide.md, "Slurm releases").
std::string build_line() {
    std::string line = std::string("jfp ") + PACKAGE_VERSION + " built for Slurm " + JFP_SLURM_VERSION;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&slurm_sink), &info) && info.dli_fname) line += std::string(" from ") + info.dli_fname;
    return line;
}

}  // namespace

extern "C" JFP_EXPORT int init(void) {
    try {
        jfp::set_log_sink(slurm_sink);
        jfp::set_debug_probe(slurm_debug_enabled);
        jfp::log_info(build_line());
        jfp::EngineOptions opt;
        opt.config_path = extra_conf_path("jfp.conf");
        opt.slurm_conf_path = slurm_conf_path(opt.config_path);
        opt.trusted_uids = {0};
        if (slurm_conf.cluster_name) opt.cluster_name = slurm_conf.cluster_name;
        if (slurm_conf.slurm_user_id != 0) opt.trusted_uids.push_back(slurm_conf.slurm_user_id);
        auto *engine = new jfp::Engine(opt);
        {
            std::lock_guard<std::timed_mutex> lk(g_engine_mu);
            delete g_engine.exchange(engine);
            g_init_pid = ::getpid();
        }
        static std::once_flag at_exit;
        std::call_once(at_exit, [] { std::atexit(flush_at_exit); });
        jfp::log_info("init: " + engine->describe());
        if (!jfp_plugin::job_record_layout_releases())
            jfp::log_info("init: jfp has no layout of slurmctld's job record for Slurm " JFP_SLURM_VERSION
                          ": updates (scontrol update) are judged as fresh submissions of what they change");
    } catch (const std::exception &e) {
        log_fault("init", e.what());
    } catch (...) {
        log_fault("init", "unknown exception");
    }
    return SLURM_SUCCESS;  // a broken jfp must never stop slurmctld from starting
}

extern "C" JFP_EXPORT int fini(void) {
    try {
        // Slurm calls fini with its plugin lock held for writing: no job_submit runs concurrently.
        std::lock_guard<std::timed_mutex> lk(g_engine_mu);
        delete g_engine.exchange(nullptr);
    } catch (...) {
    }
    return SLURM_SUCCESS;
}

extern "C" JFP_EXPORT int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg) {
    try {
        jfp::Engine *engine = g_engine.load(std::memory_order_acquire);
        if (!engine || !job_desc) return SLURM_SUCCESS;
        jfp::SubmitOutcome out = engine->evaluate(jfp_plugin::to_submit_request(job_desc, submit_uid));
        return jfp_plugin::apply_outcome(job_desc, out, err_msg);
    } catch (const std::exception &e) {
        log_fault("job_submit", e.what());
    } catch (...) {
        log_fault("job_submit", "unknown exception");
    }
    return SLURM_SUCCESS;
}

namespace {

jfp::RateLimitedLog g_layout_log(3600);

uint64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

int modify(job_desc_msg_t *job_desc, const job_record *job_ptr, uint32_t submit_uid, char **err_msg) {
    try {
        jfp::Engine *engine = g_engine.load(std::memory_order_acquire);
        if (!engine || !job_desc) return SLURM_SUCCESS;
        // The job as slurmctld holds it now (owner, request, AdminComment with its token): the update is
        // judged as the job will be after it.
        std::string job_id = jfp_plugin::job_id_of(job_desc);
        jfp::JobRecordView job = jfp_plugin::read_job_record(job_ptr);
        if (job_ptr && !job.readable && jfp_plugin::job_record_layout_releases())
            g_layout_log.log(jfp::LogLevel::Error,
                             "job_modify: slurmctld's job record is not laid out as in Slurm " JFP_SLURM_VERSION
                             " (a magic cookie, the job id or its owner is not where jfp reads it: another Slurm build?); updates "
                             "are judged as fresh submissions of what they change; rebuild jfp against the running Slurm");
        // One update RPC calls job_modify once per record it reaches, on this thread, with this descriptor:
        // what the update says is prepared once for them (model/request/update_rpc.h), and the comment jfp
        // wrote for the record before is taken back (update_comment.h).
        thread_local jfp::UpdateRpc rpc;
        thread_local jfp_plugin::UpdateComment comment;
        const uint64_t now = monotonic_ns();
        comment.restore(job_desc, now);
        const char *sent = job_desc->comment;
        std::optional<std::string> sent_text = jfp_plugin::comment_of(job_desc);
        jfp::SubmitOutcome out = engine->evaluate_update(rpc, job_desc, job_id,
                                                         jfp_plugin::to_submit_request(job_desc, submit_uid), submit_uid, job);
        int rc = jfp_plugin::apply_outcome(job_desc, out, err_msg);
        comment.applied(job_desc, sent, std::move(sent_text), now);
        return rc;
    } catch (const std::exception &e) {
        log_fault("job_modify", e.what());
    } catch (...) {
        log_fault("job_modify", "unknown exception");
    }
    return SLURM_SUCCESS;
}

}  // namespace

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
extern "C" JFP_EXPORT int job_modify(job_desc_msg_t *job_desc, job_record *job_ptr, uint32_t submit_uid,
                                     char **err_msg) {
    return modify(job_desc, job_ptr, submit_uid, err_msg);
}
#else
// 22.05 has no err_msg for job_modify: a refused update reads "Access/permission denied".
extern "C" JFP_EXPORT int job_modify(job_desc_msg_t *job_desc, job_record *job_ptr, uint32_t submit_uid) {
    return modify(job_desc, job_ptr, submit_uid, nullptr);
}
#endif
