// What jfp monitor found, for node_exporter's textfile collector beside the plugin's own metrics file: the
// alert rules in docs/examples/jfp-alerts.yml compare live precision with its target from these.
#pragma once

#include <cstdint>
#include <string>

#include "tools/monitor/monitor_run.h"

namespace jfp {

// Prometheus text (format 0.0.4), one gauge per figure, labelled with the model; written_epoch is the
// time the file says it was written.
std::string live_metrics_text(const LiveMonitorReport &r, size_t min_flagged, int64_t written_epoch);

}  // namespace jfp
