// jfp report's page: one self-contained HTML file (inline SVG charts, no script, no outside resource)
// drawn from the computed ReportData: curves against both baselines, calibration, what each threshold
// would flag, the score distributions, the cost, per-partition, per-class and per-feature tables, the
// script findings, the live section, the training metadata.
#pragma once

#include <string>

#include "tools/report/report_data.h"

namespace jfp {

std::string report_page_html(const ReportData &d);

// Writes the page atomically (a reader sees the old file or the new one), readable as the umask allows.
void write_report_page(const std::string &path, const std::string &html);

}  // namespace jfp
