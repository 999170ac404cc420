#include "model/runtime/decision_record.h"

#include <cstdio>

#include "model/jobs/outcome.h"
#include "model/util/log.h"
#include "model/util/text.h"

namespace jfp {

void log_decision(const Config &cfg, const JudgedRequest &c, const Decision &d, const std::string &model_id, bool is_update,
                  const JoinToken &token) {
    const bool info = d.action == Action::Warn || d.action == Action::Reject || (cfg.mode == Mode::Shadow && d.flagged);
    if (!info && !debug_enabled()) return;
    const JobRequest &r = c.r;
    const Score &s = c.s;
    // "-" when not computed: the log level can change between judge and here (scontrol setdebug).
    const char *cls = s.classified ? outcome_name(kFailureClassOutcomes[s.top_class]) : "-";
    char waste[128] = "";
    if (d.by_waste)
        std::snprintf(waste, sizeof waste, " cost=%.1f expected_waste=%.1f budget=%.1f%s", d.cost, d.expected_waste, d.budget,
                      d.cheap ? " cheap" : d.cost_unbounded ? " cost-unbounded" : "");
    const char *why = d.below_min_history ? " below-min-history"
                      : d.no_history      ? " no-history"
                      : d.privileged      ? " privileged"
                      : d.below_target    ? " below-target"
                                          : "";
    char line[512];
    std::snprintf(line, sizeof line, "%s%s user=%s name=%s p=%.3f class=%s threshold=%.3f%s action=%s%s%s%s model=%s token=%s",
                  cfg.mode == Mode::Shadow ? "shadow " : "", is_update ? "update" : "submit", r.user.c_str(),
                  quote_log_field(r.name, 60).c_str(), static_cast<double>(s.p_fail), cls, d.threshold, waste,
                  cfg.mode == Mode::Shadow && d.flagged && !d.exempt ? "would-act" : action_name(d.action),
                  d.exempt ? " exempt" : "", d.override_used ? " override" : "", why, model_id.c_str(), token.c_str());
    if (info) log_info(line);
    else log_debug(line);
}

FeatureLogEntry feature_log_entry(const JudgedRequest &c, const Decision &d, const std::shared_ptr<const ModelBundle> &model,
                                  uint32_t uid, const JoinToken &token, bool is_update, DeferredScript script) {
    const JobRequest &r = c.r;
    const Score &s = c.s;
    FeatureLogEntry e;
    e.token = token;
    e.scored_at = r.submit_time;
    e.model_id = std::shared_ptr<const std::string>(model, &model->model_id());
    e.uid = uid;
    e.user = r.user;
    e.name = r.name;
    e.p_fail = s.p_fail;
    e.top_class = s.classified && d.flagged ? static_cast<int8_t>(s.top_class) : int8_t(-1);  // NULL below the threshold
    e.action = static_cast<uint8_t>(d.action);
    e.threshold = static_cast<float>(d.threshold);
    e.x = c.x;
    e.script_fingerprint = r.script_fingerprint;
    e.script = std::move(script);
    e.update = is_update;
    return e;
}

}  // namespace jfp
