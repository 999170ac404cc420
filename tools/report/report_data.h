// What jfp report shows, computed: every finished job submitted from `after` scored as the plugin would
// have scored it at submission (features from jobs that ended before it), against both baselines and the
// rules; the verdict; the waste; what the archived scripts showed; the live traffic. The page
// (report_page.h) only draws it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/jobs/cluster_defaults.h"
#include "model/scoring/features.h"
#include "model/scoring/model_bundle.h"
#include "model/scoring/rules.h"
#include "tools/monitor/live_monitor.h"
#include "tools/evaluate/metrics.h"
#include "tools/evaluate/verdict.h"
#include "tools/evaluate/waste.h"

namespace jfp {

class ModuleIndex;

struct ReportInputs {
    std::string db;                   // the history store
    std::string model;                // the bundle file
    int64_t after = 0;                // first submit time evaluated
    double threshold = -1;            // <0: the bundle's
    ClusterDefaults billing;          // slurm.conf's billing weights, for the waste section
    std::string feature_log;          // non-empty: the live section
    int64_t since = 0;                // with feature_log: live jobs scored from
    std::string script_archive;       // non-empty: the script findings section
    const ModuleIndex *modules = nullptr;  // with script_archive: module loads checked against it
    bool progress = true;             // a progress bar on a terminal
};

// One evaluated job: what the report needs of it.
struct ReportRow {
    float p, b1, b2;  // the model, "last user+name failed", "user rate, recent runs"
    std::array<float, kNumRules> rule;
    int label;
    int actual_class;  // -1 for completed
    int predicted_class;
    std::string partition;
    double core_hours;
};

// Archived jobs by what their script showed.
struct ScriptFindingCounts {
    struct Count {
        size_t jobs = 0, failed = 0;
    } sbatch, modules, none, archived;
    bool modules_checked = false;
};

struct ReportData {
    std::string db;
    int64_t after = 0;
    double threshold = 0;
    std::unique_ptr<ModelBundle> bundle;
    std::vector<ReportRow> rows;
    size_t n_failed = 0;
    std::vector<double> contrib_abs, contrib_failed;  // summed per feature: |contribution| over all, signed over failed
    BinaryMetrics model;
    std::array<BinaryMetrics, kNumRules> rules;
    BundleVerdict verdict;
    std::vector<WasteJob> waste;
    const char *waste_unit = nullptr;
    std::optional<ScriptFindingCounts> scripts;  // with script_archive
    std::string script_archive;
    std::optional<LiveSummary> live;  // with feature_log
    std::string feature_log;

    // Per-row columns, in row order.
    std::vector<float> scores() const;
    std::vector<float> baseline1() const;
    std::vector<float> baseline2() const;
    std::vector<int> labels() const;
    std::vector<double> core_hours() const;
};

// Throws with what to do when no finished job was submitted from `after`.
ReportData compute_report(const ReportInputs &in);

}  // namespace jfp
