#include "tools/check/check_report.h"

#include "model/util/text.h"

namespace jfp {

std::string findings_text(const std::vector<Finding> &findings, bool quiet, size_t &problems) {
    std::string o;
    size_t warnings = 0;
    problems = 0;
    for (const Finding &f : findings) {
        const char *tag = f.level == Finding::Level::Ok ? "ok" : f.level == Finding::Level::Warning ? "warning" : "PROBLEM";
        problems += f.level == Finding::Level::Problem;
        warnings += f.level == Finding::Level::Warning;
        if (quiet && f.level == Finding::Level::Ok) continue;
        appendf(o, "  %-8s %s\n", tag, printable(f.what, 2000).c_str());
        if (!f.fix.empty()) appendf(o, "  %-8s fix: %s\n", "", printable(f.fix, 2000).c_str());
    }
    appendf(o, "jfp check: %zu problem%s, %zu warning%s\n", problems, problems == 1 ? "" : "s", warnings,
            warnings == 1 ? "" : "s");
    return o;
}

size_t report_site_check(const SiteCheckOptions &o, bool quiet, std::ostream &out) {
    // Said before the checks run: they ask slurmctld for its version and read the store.
    out << "jfp check: " << o.conf_path << ", " << o.slurm_conf_path << "\n" << std::flush;
    size_t problems = 0;
    out << findings_text(check_site(o), quiet, problems) << std::flush;
    return problems;
}

}  // namespace jfp
