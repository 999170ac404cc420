#include "tools/monitor/live_report.h"

#include <cstdio>

#include "model/scoring/features.h"
#include "model/util/time_util.h"
#include "tools/evaluate/svg_chart.h"

namespace jfp {

namespace {

std::string fmt(const char *f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string ratio_cell(double v) { return v < 0 ? "-" : fmt("%.3f", v); }

}  // namespace

std::string live_report_html(const LiveSummary &live, const std::string &feature_log) {
    std::string h = "<h2>Live traffic</h2><p class=\"note\">What the plugin scored at submission (feature log " +
                    html_escape(feature_log) + ") joined to the outcomes ingested since; precision and recall at the "
                    "threshold in force when each job was scored.";
    if (live.scored_by_other_models)
        h += " " + std::to_string(live.scored_by_other_models) + " jobs were scored by another model.";
    h += " Each figure is also given per user: a user's jobs count as at most " + fmt("%g", live.user_cap) +
         " in it, so no one user moves it far; jfp monitor's alerts judge these, and only with jobs from several users.";
    h += "</p><table id=\"live\"><tr><th>week of</th><th>scored</th><th>with outcome</th><th>failed</th><th>flagged</th>"
         "<th>precision</th><th>recall</th><th>mean predicted</th><th>observed failure rate</th>"
         "<th>precision per user</th><th>recall per user</th><th>users flagged</th></tr>";
    auto row = [&](const std::string &label, const LivePeriod &p) {
        const CappedRatio prec = p.precision_capped(live.user_cap), rec = p.recall_capped(live.user_cap);
        h += "<tr><td>" + label + "</td><td>" + std::to_string(p.scored) + "</td><td>" + std::to_string(p.with_outcome) +
             "</td><td>" + std::to_string(p.failed) + "</td><td>" + std::to_string(p.flagged) + "</td><td>" +
             ratio_cell(p.precision()) + "</td><td>" + ratio_cell(p.recall()) + "</td><td>" + ratio_cell(p.mean_predicted()) +
             "</td><td>" + ratio_cell(p.observed()) + "</td><td>" + ratio_cell(prec.capped) + "</td><td>" +
             ratio_cell(rec.capped) + "</td><td>" + std::to_string(prec.users) + "</td></tr>";
    };
    for (const auto &[start, p] : live.periods) row(format_sacct_time(start).substr(0, 10), p);
    row("all", live.total);
    h += "</table>";
    // jfp monitor's own rule for judging precision (--min-flagged 20): below it the figures above are anecdotes.
    if (live.total.flagged < 20 || live.total.failed < 20)
        h += "<p id=\"too-few\" class=\"note\"><b>Too few outcomes to judge:</b> " + std::to_string(live.total.flagged) +
             " flagged and " + std::to_string(live.total.failed) + " failed jobs have an outcome so far; precision and recall "
             "here rest on too few jobs. Wait for more scored jobs to finish and be ingested, or widen --since.</p>";
    else if (live.total.precision_capped(live.user_cap).users < kDefaultMinUsers)
        h += "<p id=\"too-few-users\" class=\"note\"><b>Not enough users to judge:</b> the flagged jobs with an outcome "
             "are from " + std::to_string(live.total.precision_capped(live.user_cap).users) + " users; jfp monitor needs " +
             std::to_string(kDefaultMinUsers) + " (--min-users) before it alerts on precision.</p>";
    h += "<p class=\"note\">Drift of the features the model uses, population stability index between the "
         "training window (" + html_escape(live.window_start) + " .. " + html_escape(live.window_end) + ", " +
         std::to_string(live.training_rows) + " jobs) and live traffic (" + std::to_string(live.live_users) +
         " users); above 0.25 is a shift worth acting on. Per user: both sides with each user's jobs capped.</p>"
         "<table id=\"drift\"><tr><th>feature</th><th>PSI</th><th>PSI per user</th></tr>";
    for (size_t i = 0; i < live.drift.size() && i < 10; ++i)
        h += std::string("<tr><td>") + feature_names()[static_cast<size_t>(live.drift[i].feature)] + "</td><td>" +
             fmt("%.3f", live.drift[i].psi) + "</td><td>" + fmt("%.3f", live.drift[i].capped) + "</td></tr>";
    return h + "</table>";
}

}  // namespace jfp
