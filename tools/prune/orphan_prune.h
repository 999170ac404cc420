// `jfp prune orphans`: what requests that never became jobs left behind (--test-only, a partition or
// account slurmctld refused, any job it refused after job_submit). The plugin judged and recorded them like
// any other, as it cannot know slurmctld's verdict. A feature-log row or archived script whose token no job
// in the store carries, once the store has jobs submitted after it plus the grace, is one of those.
#pragma once

#include <ostream>

#include "tools/prune/prune_request.h"

namespace jfp {

// r.age is the grace; r.feature_log and r.archive are pruned when named and present. Says what it removed
// (or would, dry_run) on out. Throws on a grace under 7 days without force, a missing store, or a writer
// that held a file too long.
void prune_orphans(const PruneRequest &r, std::ostream &out);

}  // namespace jfp
