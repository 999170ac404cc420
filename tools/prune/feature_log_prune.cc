#include "tools/prune/feature_log_prune.h"

#include <unistd.h>

#include <stdexcept>

#include "model/scoring/feature_log.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

void prune_feature_log_rows(const PruneRequest &r, std::ostream &out) {
    if (r.age < kMinRetentionDays * 86400 && !r.force && !r.dry_run)
        throw std::runtime_error("--older-than " + r.age_text + " would remove rows of jobs scored in the last " +
                                 std::to_string(kMinRetentionDays) + " days: jobs still queued or running, and what jfp monitor "
                                 "and jfp train --feature-log read. Give a longer age, or --force");
    if (::access(r.feature_log.c_str(), F_OK) != 0) {
        // The plugin creates it at the first scored job: a site that has scored none has nothing to prune.
        out << "jfp prune feature-log: no feature log at " << r.feature_log << " yet: nothing to prune\n" << std::flush;
        return;
    }
    const int64_t before = naive_local_now() - r.age;
    FeatureLogPrune p;
    try {
        prune_feature_log(r.feature_log, before, !r.dry_run, r.vacuum, p);
    } catch (const SqliteError &e) {
        throw_prune_busy(e, r.feature_log, "the plugin's writer",
                         std::to_string(p.removed) + " rows were removed before that (they stay removed)" +
                             (r.vacuum ? ", or it was the vacuum" : ""));
    }
    std::string o;
    appendf(o, "jfp prune feature-log: %s %llu rows of jobs scored before %s; %llu %s\n", r.dry_run ? "would remove" : "removed",
            static_cast<unsigned long long>(p.removed), format_sacct_time(before).c_str(),
            static_cast<unsigned long long>(p.kept), r.dry_run ? "would remain" : "remain");
    if (!r.dry_run && r.vacuum) appendf(o, "jfp prune feature-log: vacuumed %s\n", r.feature_log.c_str());
    out << o << std::flush;
}

}  // namespace jfp
