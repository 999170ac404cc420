#include "tools/scripts/script_location.h"

#include <stdexcept>
#include <utility>
#include <vector>

#include "model/jobs/outcome.h"
#include "model/util/text.h"
#include "model/util/time_util.h"
#include "tools/ingest/slurm_queue.h"

namespace jfp {

std::string state_of(const LocatedScript &f) {
    if (f.job) return f.job->state.empty() ? outcome_name(f.job->outcome) : f.job->state;
    return f.job_id.empty() ? "-" : "queued/running";
}

std::string describe(const LocatedScript &f) {
    return "job " + printable(f.job_id.empty() ? "?" : f.job_id) + " (" + printable(f.sub.user) + ", " +
           quote_for_message(f.sub.name, 200) + ", submitted " + format_sacct_time(f.sub.submitted) + ", " +
           printable(state_of(f)) + ")";
}

LocatedScript locate_script(const ScriptArchive &archive, const HistoryStore *store, const std::string &squeue,
                            const std::string &job, bool by_token) {
    LocatedScript f;
    if (by_token) {
        auto s = archive.by_token(job);
        if (!s) throw std::runtime_error("no script with token " + job + " in " + archive.path());
        f.sub = *s;
        if (store) f.job = store->job_with_token(job);
        if (f.job) f.job_id = f.job->job_id;
        return f;
    }
    bool in_store_untokened = false;
    if (store) {
        for (const JobRecord &j : store->jobs_with_id(job)) {
            if (j.jfp_token.empty()) {
                in_store_untokened = true;
                continue;
            }
            if (auto s = archive.by_token(j.jfp_token)) {
                f.sub = *s;
                f.job = j;
                f.job_id = j.job_id;
                return f;
            }
            throw std::runtime_error("job " + job + " (token " + j.jfp_token + ") has no script in " + archive.path() +
                                     ": it was submitted before script_archive was set, was not a batch job, was "
                                     "pruned, or the archive dropped it (slurmctld's log says when it drops)");
        }
    }
    std::vector<std::pair<std::string, std::string>> queued;
    try {
        queued = queue_tokens(squeue, job);
    } catch (const std::exception &) {  // no squeue here (an archive copied elsewhere): the store's word stands
    }
    for (const auto &[id, token] : queued) {
        if (id != job) continue;
        if (auto s = archive.by_token(token)) {
            f.sub = *s;
            f.job_id = id;
            return f;
        }
    }
    if (in_store_untokened)
        throw std::runtime_error("job " + job + " carries no jfp token: it was submitted while the plugin was off "
                                 "(or before jfp), so no script was archived");
    throw std::runtime_error("job " + job + " is unknown: not in the history store" +
                             (store ? " " + store->path() : std::string(" (none given: --db)")) +
                             " and not in slurmctld's queue; ingest its accounting record first (jfp ingest "
                             "--from-sacct), or look it up with --token TOKEN from slurmctld's log");
}

LocatedScript last_completed_run(const ScriptArchive &archive, const HistoryStore &store, const LocatedScript &failed) {
    int completed = 0;
    for (const JobRecord &j : store.tokened_runs(failed.sub.user, failed.sub.name, failed.sub.submitted)) {
        if (j.outcome != Outcome::Completed) continue;
        ++completed;
        if (auto s = archive.by_token(j.jfp_token)) {
            LocatedScript f;
            f.sub = *s;
            f.job = j;
            f.job_id = j.job_id;
            return f;
        }
    }
    throw std::runtime_error("no completed run of " + quote_for_message(failed.sub.name, 200) + " by " +
                             printable(failed.sub.user) + " before " + describe(failed) + " has an archived script (" +
                             std::to_string(completed) + " completed runs with a jfp token in the store, none archived)");
}

}  // namespace jfp
