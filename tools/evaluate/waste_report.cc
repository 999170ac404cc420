#include "tools/evaluate/waste_report.h"

#include <algorithm>
#include <cstdio>

#include "model/policy/user_message.h"
#include "tools/evaluate/svg_chart.h"

namespace jfp {

namespace {

std::string pct(double share) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%", 100 * share);
    return b;
}

std::string cells(const RefusalCut &c) {
    return "<td>" + std::to_string(c.refused) + "</td><td>" + std::to_string(c.failed_caught) + "</td><td>" +
           amount_text(c.burnt_caught) + "</td><td>" + pct(c.share()) + "</td>";
}

}  // namespace

std::string waste_section_html(const std::vector<WasteJob> &jobs, double threshold, const char *unit,
                               const ModelBundle &bundle) {
    const std::string u = unit;
    size_t completed = 0;
    for (const auto &j : jobs) completed += j.label == 0;
    const size_t max_wrongly = std::min<size_t>(1000, completed);
    WasteCurve curve = waste_curve(jobs, threshold, max_wrongly);
    Chart ch;
    ch.id = "waste";
    ch.title = "Failed " + u + " caught against completed jobs refused";
    ch.x_label = "completed jobs refused (wrongly)";
    ch.y_label = "share of failed " + u + " caught";
    ch.x_min = 0;
    ch.x_max = std::max<double>(10, static_cast<double>(max_wrongly));
    ch.y_min = 0;
    ch.y_max = 1;
    ch.series.push_back({"by p", "#1f77b4", curve.by_probability});
    ch.series.push_back({"by p x cost", "#d62728", curve.by_waste});
    std::string h = "<h2>Deciding by waste (" + html_escape(u) +
                    ")</h2><p class=\"note\">Each policy refuses jobs from the top of its ranking: by the chance of "
                    "failing, or by the expected waste (p &times; what the job asks for &times; its time limit). At the "
                    "same number of completed jobs refused, the share of the " + html_escape(u) +
                    " failed jobs burnt that each would have saved. Jobs without a bounded cost are refused by the "
                    "threshold alone, as the plugin refuses them.</p><div class=\"charts\">" +
                    ch.svg() + "</div>";
    h += "<table id=\"waste\"><tr><th>completed jobs refused, at most</th><th>refused by p</th><th>failed</th><th>their " +
         html_escape(u) + "</th><th>share</th><th>refused by waste</th><th>failed</th><th>their " + html_escape(u) +
         "</th><th>share</th></tr>";
    for (size_t k : {size_t(10), size_t(100), size_t(500)}) {
        auto by_p = cut_at_wrongly_refused(jobs, Ranking::Probability, threshold, k);
        auto by_w = cut_at_wrongly_refused(jobs, Ranking::Waste, threshold, k);
        h += "<tr><td>" + std::to_string(k) + "</td>" + cells(by_p) + cells(by_w) + "</tr>";
    }
    h += "</table>";
    if (known(bundle.waste_budget()))
        h += "<p class=\"note\">jfp train chose a waste budget of " + amount_text(bundle.waste_budget()) + " " +
             html_escape(u) + " on its validation window (decide_by = waste uses it unless jfp.conf sets waste_budget).</p>";
    else
        h += "<p class=\"note\">The bundle records no waste budget: decide_by = waste needs waste_budget in jfp.conf.</p>";
    return h;
}

}  // namespace jfp
