// The model bundle: reloaded when its file changes, and what the loaded model means for the site's
// settings (a missed target precision, a waste budget in other units) said once per model and setting.
#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cstdio>

#include "jfp_config.h"
#include "model/files/file_check.h"
#include "model/reload/state_loader.h"
#include "model/scoring/features.h"
#include "model/util/log.h"
#include "model/util/text.h"

#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#endif

namespace jfp {

namespace {

// A bundle jfp train writes is about 100 KiB (docs/testing.md); a file of hundreds of MiB is not one, and is
// not read into slurmctld.
constexpr size_t kMaxBundleBytes = size_t{256} << 20;

}  // namespace

// An admin choosing a mode should know whether the threshold reached the target precision or is train's
// best-F1 fallback.
std::string threshold_note(const ModelBundle &b) {
    const nlohmann::json &m = b.metadata();
    auto c = m.find("threshold_choice");
    if (c == m.end() || !c->is_object()) return " (its validation precision not recorded)";
    double p = -1, r = -1, target = -1, lower = -1, confidence = 0;
    bool reached = false;
    try {
        p = c->value("precision", -1.0);
        lower = c->value("precision_lower_bound", -1.0);  // absent from older bundles: the point estimate only
        confidence = c->value("confidence", 0.0);
        r = c->value("recall", -1.0);
        reached = c->value("target_reached", false);
        target = m.value("target_precision", -1.0);
    } catch (const nlohmann::json::exception &) {
        return " (its validation precision not readable)";
    }
    char bound[64] = "";
    if (lower >= 0 && confidence > 0)
        std::snprintf(bound, sizeof bound, " (at least %.2f at %.0f%% confidence)", lower, confidence * 100);
    char out[240];
    if (reached)
        std::snprintf(out, sizeof out, ": validation precision %.2f%s, recall %.2f, target %.2f reached", p, bound, r, target);
    else
        std::snprintf(out, sizeof out, ": validation precision %.2f%s, recall %.2f, target %.2f NOT reached (best-F1 threshold)",
                      p, bound, r, target);
    return out;
}

bool StateLoader::load_model(PublishedState &next, const Publish &publish, LoaderEvents &ev) {
    const std::string &path = next.config.model_path;
    if (!model_.changed(path)) return false;
    const FileSig &ms = model_.sig();
    std::string err;
    next.model_missing = !ms.exists;
    if (!ms.exists) {
        // The guide's layout: trained beside it (model.new.json), installed through the publish gate.
        const bool json = path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0;
        const std::string beside = json ? path.substr(0, path.size() - 5) + ".new.json" : path + ".new";
        err = "missing (train one beside it, jfp train --out " + beside + ", and install it with jfp publish " + beside +
              ": admin guide, Enable)";
    } else if (TrustedRead f = read_trusted_file(path, opt_.trusted_uids, kMaxBundleBytes); !f.problem.empty()) {
        err = "refused: " + f.problem;
    } else if (f.too_big) {
        err = "larger than " + std::to_string(kMaxBundleBytes >> 20) + " MiB: not a model bundle; refused unread";
    } else {
        try {
            auto t0 = std::chrono::steady_clock::now();
            auto b = std::make_shared<const ModelBundle>(ModelBundle::load_text(f.out, path));
#ifdef HAVE_MALLOC_TRIM
            malloc_trim(0);  // JSON parsing leaves freed memory glibc would otherwise keep in slurmctld
#endif
            const auto ms_taken = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
            char buf[400];
            std::snprintf(buf, sizeof buf, "loaded model %s (%s, threshold %.4f%s, %zu reference rows checked) in %" PRId64 " ms",
                          b->model_id().c_str(), b->describe_kind().c_str(), b->threshold(), threshold_note(*b).c_str(),
                          b->reference_rows_checked(), static_cast<int64_t>(ms_taken));
            next.model = b;
            next.model_note = std::string("model ") + b->model_id();
            ev.model_loaded = true;
            publish(next);  // score with it now, not after the history has loaded too
            // A bundle of an earlier schema scores as it did, blind to the features added since.
            std::string older;
            if (b->feature_schema() != kFeatureSchemaVersion)
                older = "; trained on feature schema " + std::to_string(b->feature_schema()) + ", read as the first " +
                        std::to_string(feature_count_of_schema(b->feature_schema())) + " of this jfp's " +
                        std::to_string(kNumFeatures) + " features" +
                        (b->pooled_forgotten() ? ", the partition's and account's failure rates as unknown (they are its users' rates now)" : "") +
                        ": retrain (jfp train) for it to learn from the others";
            log_info(std::string(buf) + " from " + path + older);
            model_.loaded();
            return true;
        } catch (const std::exception &e) {
            err = e.what();
        }
    }
    if (model_.new_error(err)) {
        const std::string line = "model " + path + " not used: " + err + "; " +
                                 (next.model ? "keeping model " + next.model->model_id() : "jobs pass unscored");
        // No model file and none loaded: a site waiting for its first model (the guide's Enable), not a fault.
        if (next.model_missing && !next.model) log_msg(LogLevel::Warning, line);
        else model_.report(line, err);
        ev.model_error_said = true;  // that line says it: the unscored reminder comes an interval later
    }
    // The init line quotes the note in parentheses: the missing file's remedy is in the line above.
    next.model_note = (next.model ? "keeping " + next.model->model_id() + "; " : "") +
                      (next.model_missing ? std::string("missing: none published yet") : err);
    return true;
}
// Said once per model and set of budgets: which budget decides by waste, or why none does.
void StateLoader::note_waste(const PublishedState &st) {
    const Config &c = st.config;
    const bool applies = st.model && st.config_present && c.decide_by == DecideBy::Waste;
    const double bundle_budget = st.model ? st.model->waste_budget() : kUnknown;
    std::string key;
    if (applies) {
        key = st.model->model_id() + "|" + (c.waste_budget ? number_text(*c.waste_budget) : std::string("-")) + "|" +
              std::to_string(c.partition_waste_budget.size() + c.account_waste_budget.size() + c.qos_waste_budget.size());
    }
    if (key == waste_said_) return;
    waste_said_ = key;
    if (!applies) return;
    const size_t scoped = c.partition_waste_budget.size() + c.account_waste_budget.size() + c.qos_waste_budget.size();
    const std::string more = scoped ? " (and " + std::to_string(scoped) + " per-partition, -account or -QOS budgets)" : "";
    if (c.waste_budget)
        log_info("deciding by waste: jobs whose expected waste reaches " + number_text(*c.waste_budget) +
                 " billing-hours (core-hours where slurm.conf sets no TRESBillingWeights) are acted on" + more);
    else if (known(bundle_budget) && !st.model->waste_unit().empty() &&
             st.model->waste_unit() != st.defaults->billing_rule(st.defaults->default_partition).unit())
        log_warning("decide_by = waste: model " + st.model->model_id() + "'s budget is in " + st.model->waste_unit() +
                    ", and slurm.conf prices jobs in " + st.defaults->billing_rule(st.defaults->default_partition).unit() +
                    ": it is not used where the units differ (those jobs are judged by probability); train with this "
                    "slurm.conf (jfp train --slurm-conf) or set waste_budget");
    else if (known(bundle_budget))
        log_info("deciding by waste: model " + st.model->model_id() + "'s budget, " + number_text(bundle_budget) + " " +
                 (st.model->waste_unit().empty() ? std::string("billing-hours") : st.model->waste_unit()) + more);
    else if (scoped)
        log_warning("decide_by = waste: no waste_budget in jfp.conf and model " + st.model->model_id() +
                    " records none: only jobs under a per-partition, -account or -QOS budget are judged by waste, the "
                    "rest by probability");
    else
        log_warning("decide_by = waste: no waste_budget in jfp.conf and model " + st.model->model_id() +
                    " records none (jfp train says why): every job is judged by probability; set waste_budget");
}

// Said once per model and mode: a model that missed its target precision warns where reject mode would
// refuse, unless reject_below_target.
void StateLoader::note_below_target(const PublishedState &st) {
    bool applies = st.model && st.config_present && st.config.mode == Mode::Reject && st.model->below_target();
    std::string key = applies ? st.model->model_id() + (st.config.reject_below_target ? "+" : "-") : std::string();
    if (key == below_target_said_) return;
    below_target_said_ = key;
    if (!applies) return;
    std::string what = "model " + st.model->model_id() + " did not reach its target precision on validation" +
                       threshold_note(*st.model);
    if (st.config.reject_below_target)
        log_warning(what + "; reject_below_target = yes: it rejects jobs anyway");
    else
        log_warning(what + "; in reject mode it warns instead of rejecting (train on more history, or set "
                           "reject_below_target = yes to reject anyway)");
}

}  // namespace jfp
