// jfp check's report: the site's findings (site_check.h) as a person reads them, and the count of
// problems its exit status is made of.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "tools/check/site_check.h"

namespace jfp {

// One line a finding (the Ok ones left out when quiet), its fix under it, then the count of problems and
// warnings. problems is set to the count.
std::string findings_text(const std::vector<Finding> &findings, bool quiet, size_t &problems);

// Says what is checked, checks it and writes the findings to out; returns the number of problems.
size_t report_site_check(const SiteCheckOptions &o, bool quiet, std::ostream &out);

}  // namespace jfp
