#include "tools/score/predictions.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "model/archive/archived_scripts.h"
#include "model/policy/advice.h"
#include "model/policy/explain.h"
#include "model/policy/job_price.h"
#include "model/policy/user_message.h"
#include "model/scoring/feature_sweep.h"
#include "model/util/text.h"
#include "model/util/time_util.h"

namespace jfp {

PredictCounts write_predictions(const HistoryStore &store, const ModelBundle &bundle, const PredictOptions &o,
                                std::ostream &out) {
    out << "JobIDRaw,Cluster,User,JobName,Submit,State,p_fail,p_FAILED,p_TIMEOUT,p_OUT_OF_MEMORY,p_NODE_FAIL,"
           "predicted_class,flagged,cost,expected_waste,cost_unit" << (o.explain || o.explain_all ? ",message" : "") << "\n";
    PredictCounts n;
    char buf[256];
    std::unique_ptr<ArchivedScripts> scripts;
    if (!o.script_archive.empty()) scripts = std::make_unique<ArchivedScripts>(o.script_archive);
    sweep_submissions(store, [&](const Submission &sub) {
        const JobRecord &j = sub.job;
        const FeatureVector &x = sub.x;
        if (j.submit < o.after) return;
        Score s = bundle.score(x);
        bool flag = s.p_fail >= bundle.threshold();
        out << csv_field(j.job_key) << ',' << csv_field(j.cluster) << ',' << csv_field(j.user) << ','
            << csv_field(j.name) << ',' << format_sacct_time(j.submit) << ',' << outcome_name(j.outcome);
        std::snprintf(buf, sizeof buf, ",%.6f,%.6f,%.6f,%.6f,%.6f,%s,%d", s.p_fail, s.p_fail * s.p_class[0],
                      s.p_fail * s.p_class[1], s.p_fail * s.p_class[2], s.p_fail * s.p_class[3],
                      outcome_name(kFailureClassOutcomes[s.top_class]), flag ? 1 : 0);
        out << buf;
        // What the job asks for in the site's units, as decide_by = waste prices it (memory never below what
        // the job's earlier runs used); empty when no time limit bounds it.
        WasteInput w = price_job(sub.request, sub.history, o.billing, bundle.waste_budget(), bundle.waste_unit());
        if (known(w.cost)) std::snprintf(buf, sizeof buf, ",%.4f,%.4f,%s", w.cost, w.cost * static_cast<double>(s.p_fail), w.unit);
        else std::snprintf(buf, sizeof buf, ",,,%s", w.unit);
        out << buf;
        if (o.explain && !o.explain_all && !flag) {
            out << ',';  // not flagged: a user would have read nothing
        } else if (o.explain || o.explain_all) {
            MessageParts m;
            m.p_fail = s.p_fail;
            m.top_class = s.top_class;
            m.why = explain(bundle, x, sub.request, sub.history, s.top_class);
            m.what = advice(s.top_class, sub.request, sub.history);
            out << ',' << csv_field(user_message(m));
        }
        out << '\n';
        ++n.jobs;
        n.flagged += flag;
    }, scripts.get());
    return n;
}

void run_predict(const PredictOptions &o) {
    auto bundle = ModelBundle::load_file(o.model);
    HistoryStore store(o.db, HistoryStore::Access::ReadOnly);
    std::ofstream out(o.output);
    if (!out) throw std::runtime_error("cannot write " + o.output);
    const PredictCounts n = write_predictions(store, bundle, o, out);
    out.close();
    if (!out) throw std::runtime_error("error writing " + o.output);
    std::printf("jfp predict: %llu jobs submitted from %s scored with model %s; %llu at or above threshold %.4f -> %s\n",
                static_cast<unsigned long long>(n.jobs), format_sacct_time(o.after).c_str(), bundle.model_id().c_str(),
                static_cast<unsigned long long>(n.flagged), bundle.threshold(), o.output.c_str());
}

}  // namespace jfp
