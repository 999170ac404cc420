#include "tools/scripts/script_findings_lines.h"

#include <memory>
#include <vector>

#include "model/policy/script_findings.h"
#include "model/scoring/features.h"
#include "model/util/text.h"
#include "tools/modules/module_index_file.h"

namespace jfp {

std::string script_findings_lines(const std::string &script, const std::optional<JobRecord> &job,
                                  const std::string &modules_index) {
    std::string why_not;
    std::unique_ptr<ModuleIndex> index =
        optional_module_index(modules_index, "modules_index in jfp.conf, or --modules-index", why_not);
    const std::vector<std::string> found =
        script_finding_sentences(script, index.get(), job ? request_from_record(*job) : JobRequest{});
    std::string out;
    for (const auto &line : found) out += "# finding: " + printable(line, 2000) + "\n";
    if (found.empty())
        out += std::string("# findings: none (no #SBATCH line sbatch ignored") + (index ? ", no module the index lacks" : "") + ")\n";
    if (!index) out += "# module loads not checked: " + printable(why_not, 2000) + "\n";
    return out;
}

}  // namespace jfp
