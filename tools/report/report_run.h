// jfp report's work: the report computed (report_data.h), drawn (report_page.h) and written as one file.
#pragma once

#include <string>

#include "tools/report/report_data.h"

namespace jfp {

// Computes, draws and writes `output`, then prints the one-line summary. Returns the page's size in bytes.
size_t run_report(const ReportInputs &in, const std::string &output);

}  // namespace jfp
