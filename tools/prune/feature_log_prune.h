// `jfp prune feature-log`: removes the plugin's feature-log rows of jobs scored before the age given, in
// small transactions its writer never waits long for.
#pragma once

#include <ostream>

#include "tools/prune/prune_request.h"

namespace jfp {

// Says what it removed (or would, dry_run) on out; a feature log not made yet is nothing to prune. Throws on
// an age under kMinRetentionDays without force, or the plugin's writer holding the log too long.
void prune_feature_log_rows(const PruneRequest &r, std::ostream &out);

}  // namespace jfp
