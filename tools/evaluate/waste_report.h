// The report's section on deciding by waste: the failed billing-hours each policy catches against the
// completed jobs it refuses (a curve, and a table at 10, 100 and 500), and the budget jfp train chose.
#pragma once

#include <string>
#include <vector>

#include "model/scoring/model_bundle.h"
#include "tools/evaluate/waste.h"

namespace jfp {

std::string waste_section_html(const std::vector<WasteJob> &jobs, double threshold, const char *unit,
                               const ModelBundle &bundle);

}  // namespace jfp
