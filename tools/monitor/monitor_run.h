// jfp monitor's engine: does the deployed model still hold? Joins what the plugin scored at submission (the
// feature log) to the outcomes ingested since (live_monitor.h), judges it (live_alerts.h), and gives the
// report as text or JSON, and, when asked, the figures for node_exporter (live_metrics.h).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "tools/monitor/live_alerts.h"
#include "tools/monitor/live_monitor.h"

namespace jfp {

struct LiveMonitorOptions {
    std::string db, feature_log, model;
    int64_t since = 0;  // naive-local; 0: every job the feature log holds
    bool weekly = true;
    std::string metrics_file;   // empty: none written
    double min_precision = -1;  // below 0: the bundle's target precision
    double max_psi = 0.25;
    size_t min_flagged = 20;
    size_t min_scored = 50;
    size_t min_users = kDefaultMinUsers;
    double user_cap = kDefaultUserCap;
    bool json = false;
};

// What the report says, judged.
struct LiveMonitorReport {
    std::string model_id;
    int64_t since = 0;
    bool weekly = true;
    double target = 0;  // the precision the alert compares with
    double max_psi = 0;
    size_t min_users = kDefaultMinUsers;
    LiveSummary live;
    LiveVerdict verdict;
};

std::string live_monitor_text(const LiveMonitorReport &r);
std::string live_monitor_json(const LiveMonitorReport &r);  // one JSON object, indented, ending in a newline

// Writes the report to out (text or JSON), then the metrics file when one is named; returns how many alerts
// were raised (jfp monitor exits 2 when any was). Throws with what to do when an input cannot be read.
size_t run_live_monitor(const LiveMonitorOptions &o, std::ostream &out);

}  // namespace jfp
