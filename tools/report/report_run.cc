#include "tools/report/report_run.h"

#include <cstdio>

#include "tools/report/report_page.h"

namespace jfp {

size_t run_report(const ReportInputs &in, const std::string &output) {
    const ReportData d = compute_report(in);
    const std::string html = report_page_html(d);
    write_report_page(output, html);
    std::printf("jfp report: %zu %s, model %s -> %s (%zu KiB)\n", d.model.n, d.model.n == 1 ? "job" : "jobs",
                d.bundle->model_id().c_str(), output.c_str(), html.size() / 1024);
    return html.size();
}

}  // namespace jfp
