// `jfp prune store`: removes from the history store the jobs that ended before the age given (never jobs
// still queued or running), in one transaction the plugin notices (it then loads the store whole); the
// store's snapshot is made again after.
#pragma once

#include <ostream>

#include "tools/prune/prune_request.h"

namespace jfp {

// Says what it removed (or would, dry_run) on out. Throws on an age under kMinRetentionDays without force,
// a missing store, or a writer that held the store too long.
void prune_store(const PruneRequest &r, std::ostream &out);

}  // namespace jfp
