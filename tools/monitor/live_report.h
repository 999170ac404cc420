// The live section of jfp report: what jfp monitor prints, as HTML (per week, plain and per user, and the
// drift table).
#pragma once

#include <string>

#include "tools/monitor/live_monitor.h"

namespace jfp {

std::string live_report_html(const LiveSummary &live, const std::string &feature_log);

}  // namespace jfp
