#include "model/telemetry/engine_counters.h"

namespace jfp {

const std::array<CounterName, 15> kCounterNames = {{
    {Counter::Scored, "jfp_jobs_total", "decision", "scored"},
    {Counter::Annotated, "jfp_jobs_total", "decision", "annotated"},
    {Counter::Warned, "jfp_jobs_total", "decision", "warned"},
    {Counter::Rejected, "jfp_jobs_total", "decision", "rejected"},
    {Counter::Overridden, "jfp_jobs_total", "decision", "overridden"},
    {Counter::Exempt, "jfp_jobs_total", "decision", "exempt"},
    {Counter::Unscored, "jfp_jobs_total", "decision", "unscored"},
    {Counter::Updated, "jfp_jobs_total", "decision", "updated"},
    {Counter::UpdateNotOwner, "jfp_jobs_total", "decision", "update_not_owner"},
    {Counter::UpdateUnjudged, "jfp_jobs_total", "decision", "update_unjudged"},
    {Counter::Faults, "jfp_faults_total", nullptr, nullptr},
    {Counter::IgnoredDirectives, "jfp_script_findings_total", "finding", "ignored_directives"},
    {Counter::MissingModules, "jfp_script_findings_total", "finding", "missing_modules"},
    {Counter::ModelLoads, "jfp_loads_total", "what", "model"},
    {Counter::HistoryLoads, "jfp_loads_total", "what", "history"},
}};

CounterValues EngineCounters::values() const {
    CounterValues out{};
    for (size_t i = 0; i < kCounters; ++i) out[i] = v_[i].load(std::memory_order_relaxed);
    return out;
}

}  // namespace jfp
