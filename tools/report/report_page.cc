#include "tools/report/report_page.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

#include "model/files/atomic_file.h"
#include "model/util/time_util.h"
#include "tools/monitor/live_report.h"
#include "tools/evaluate/svg_chart.h"
#include "tools/evaluate/waste_report.h"

namespace jfp {

namespace {

const char *kModelColor = "#1f5fbf", *kB1Color = "#c0392b", *kB2Color = "#27ae60";

std::string fmt(const char *f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

Chart chart(const char *id, const char *title, const char *x_label, const char *y_label) {
    Chart c;
    c.id = id;
    c.title = title;
    c.x_label = x_label;
    c.y_label = y_label;
    return c;
}

Series line(std::string label, const char *color, std::vector<std::pair<double, double>> points = {}, bool dashed = false) {
    Series s;
    s.label = std::move(label);
    s.color = color;
    s.points = std::move(points);
    s.dashed = dashed;
    return s;
}

// ROC and precision-recall points at every distinct score, thinned to at most ~400 per curve.
void curves(const std::vector<float> &s, const std::vector<int> &l, Series &roc, Series &pr) {
    auto pts = operating_points(s, l);
    size_t pos = 0, neg = 0;
    for (int x : l) (x ? pos : neg) += 1;
    if (pos == 0 || neg == 0) return;
    size_t step = std::max<size_t>(1, pts.size() / 400);
    roc.points.push_back({0, 0});
    for (size_t i = 0; i < pts.size(); ++i) {
        if (i % step != 0 && i + 1 != pts.size()) continue;
        double tpr = static_cast<double>(pts[i].tp) / static_cast<double>(pos);
        double fpr = static_cast<double>(pts[i].fp) / static_cast<double>(neg);
        roc.points.push_back({fpr, tpr});
        pr.points.push_back({tpr, static_cast<double>(pts[i].tp) / static_cast<double>(pts[i].tp + pts[i].fp)});
    }
}

std::string metrics_cells(const BinaryMetrics &m) {
    return "<td>" + fmt("%.3f", m.roc_auc) + "</td><td>" + fmt("%.3f", m.pr_auc) + "</td><td>" + fmt("%.3f", m.recall_at_p90) +
           "</td><td>" + fmt("%.4f", m.threshold) + "</td><td>" + fmt("%.3f", m.precision) + "</td><td>" +
           fmt("%.3f", m.recall) + "</td><td>" + std::to_string(m.flagged()) + "</td>";
}

std::string cost_cells(const CostAtThreshold &c) {
    double share = c.failed_core_hours > 0 ? 100 * c.failed_caught_core_hours / c.failed_core_hours : 0;
    return "<td>" + std::to_string(c.failed_caught) + "</td><td>" + fmt("%.1f", c.failed_caught_core_hours) + "</td><td>" +
           fmt("%.1f%%", share) + "</td><td>" + std::to_string(c.good_flagged) + "</td><td>" +
           fmt("%.1f", c.good_flagged_core_hours) + "</td>";
}

const char *kStyle =
    "body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1120px}"
    "h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}"
    "table{border-collapse:collapse;margin:8px 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
    "th:first-child,td:first-child{text-align:left}.charts{display:flex;flex-wrap:wrap;gap:12px}"
    ".chart{border:1px solid #eee}.ct{font-size:13px;font-weight:600}.tick{font-size:10px;fill:#555}"
    ".axis{font-size:11px}.legend{font-size:11px}.grid{stroke:#eee}.frame{fill:none;stroke:#999}"
    ".marker{stroke:#000;stroke-dasharray:3,3}.note{color:#555;font-size:13px}";


// What the evaluated jobs' archived scripts show with certainty, against how those jobs ended.
std::string script_section(const ReportData &d) {
    const ScriptFindingCounts &s = *d.scripts;
    std::string h = "<h2>What the scripts showed</h2><p class=\"note\">" + std::to_string(s.archived.jobs) + " of the " +
                    std::to_string(d.rows.size()) + " jobs evaluated have their script in the archive (" +
                    html_escape(d.script_archive) + "); what each script shows with certainty, as the plugin tells it "
                    "(ignored_directives, missing_modules in jfp.conf), against how the job ended. A finding is said "
                    "whatever the model scores.";
    if (!s.modules_checked) h += " Module loads were not checked: give --modules-index (modules_index in jfp.conf).";
    h += "</p><table id=\"script-findings\"><tr><th>finding</th><th>jobs</th><th>failed</th><th>failure rate</th></tr>";
    auto row = [&](const char *label, const ScriptFindingCounts::Count &c) {
        h += "<tr><td>" + std::string(label) + "</td><td>" + std::to_string(c.jobs) + "</td><td>" + std::to_string(c.failed) +
             "</td><td>" + (c.jobs ? fmt("%.3f", static_cast<double>(c.failed) / static_cast<double>(c.jobs)) : "-") + "</td></tr>";
    };
    row("#SBATCH lines sbatch ignored", s.sbatch);
    if (s.modules_checked) row("a module the index lacks", s.modules);
    row("no finding", s.none);
    row("all archived", s.archived);
    return h + "</table>";
}

}  // namespace

std::string report_page_html(const ReportData &d) {
    const ModelBundle &bundle = *d.bundle;
    const double thr = d.threshold;
    const BinaryMetrics &m = d.model;
    const auto &rule_m = d.rules;
    const BundleVerdict &bv = d.verdict;
    const Verdict &verdict = bv.verdict;
    const auto &rows = d.rows;
    const size_t n_failed = d.n_failed;
    const auto &contrib_abs = d.contrib_abs;
    const auto &contrib_failed = d.contrib_failed;
    const int64_t after = d.after;
    const std::vector<float> p = d.scores(), b1 = d.baseline1(), b2 = d.baseline2();
    const std::vector<int> labels = d.labels();
    const std::vector<double> hours = d.core_hours();

    // ---- charts
    Chart roc = chart("roc", "ROC curve", "false positive rate", "true positive rate");
    Chart prc = chart("pr", "Precision-recall curve", "recall", "precision");
    Series rm = line("model (AUC " + fmt("%.3f", m.roc_auc) + ")", kModelColor);
    Series rb1 = line("last user+name failed", kB1Color);
    Series rb2 = line("user rate, recent runs", kB2Color);
    Series pm = line("model (AP " + fmt("%.3f", m.pr_auc) + ")", kModelColor);
    Series pb1 = line("last user+name failed", kB1Color);
    Series pb2 = line("user rate, recent runs", kB2Color);
    curves(p, labels, rm, pm);
    curves(b1, labels, rb1, pb1);
    curves(b2, labels, rb2, pb2);
    roc.series = {rm, rb1, rb2, line("chance", "#999", {{0, 0}, {1, 1}}, true)};
    double base_rate = static_cast<double>(m.positives) / static_cast<double>(m.n);
    prc.series = {pm, pb1, pb2, line("failure rate " + fmt("%.3f", base_rate), "#999", {{0, base_rate}, {1, base_rate}}, true)};

    Chart cal = chart("calibration", "Calibration: predicted vs observed failure rate", "mean predicted p (10 bins)", "observed failure rate");
    Series cal_s = line("model", kModelColor);
    Series cal_n = line("jobs per bin (share)", "#888");
    cal_n.bars = true;
    cal_n.bar_width = 0.1;
    for (int b = 0; b < 10; ++b) {
        double sum_p = 0, fails = 0;
        size_t n = 0;
        for (const auto &r : rows)
            if (std::min(9, static_cast<int>(r.p * 10)) == b) {
                sum_p += r.p;
                fails += r.label;
                ++n;
            }
        if (n > 0) cal_s.points.push_back({sum_p / static_cast<double>(n), fails / static_cast<double>(n)});
        cal_n.points.push_back({b / 10.0 + 0.05, static_cast<double>(n) / static_cast<double>(rows.size())});
    }
    cal.series = {cal_n, cal_s, line("perfect", "#999", {{0, 0}, {1, 1}}, true)};

    Chart sweep = chart("threshold", "What each threshold would flag", "threshold", "fraction");
    Series sp = line("precision", kModelColor);
    Series sr = line("recall", kB1Color);
    Series sf = line("jobs flagged (share)", kB2Color);
    for (int i = 0; i <= 100; ++i) {
        double t = i / 100.0;
        auto e = evaluate_binary(p, labels, t);
        if (e.flagged() > 0) sp.points.push_back({t, e.precision});
        sr.points.push_back({t, e.recall});
        sf.points.push_back({t, static_cast<double>(e.flagged()) / static_cast<double>(e.n)});
    }
    sweep.series = {sp, sr, sf};
    sweep.x_markers = {{thr, "threshold " + fmt("%.3f", thr)}};

    Chart hist = chart("histogram", "Scores of failed and completed jobs", "p_fail", "share of the group's jobs");
    Series hf = line("failed", kB1Color);
    Series hc = line("completed", kModelColor);
    hf.bars = hc.bars = true;
    hf.bar_width = hc.bar_width = 0.05;
    std::vector<double> cf(20, 0), cc(20, 0);
    for (const auto &r : rows) (r.label ? cf : cc)[static_cast<size_t>(std::min(19, static_cast<int>(r.p * 20)))] += 1;
    double ymax = 0;
    for (int b = 0; b < 20; ++b) {
        double f = n_failed ? cf[static_cast<size_t>(b)] / static_cast<double>(n_failed) : 0;
        double k = rows.size() > n_failed ? cc[static_cast<size_t>(b)] / static_cast<double>(rows.size() - n_failed) : 0;
        hf.points.push_back({b / 20.0 + 0.025, f});
        hc.points.push_back({b / 20.0 + 0.025, k});
        ymax = std::max({ymax, f, k});
    }
    hist.series = {hc, hf};
    hist.y_max = std::max(0.05, std::ceil(ymax * 20) / 20);
    hist.x_markers = {{thr, "threshold"}};

    // ---- tables
    std::string parts;
    {
        std::map<std::string, std::pair<std::vector<float>, std::vector<int>>> by;
        for (const auto &r : rows) {
            by[r.partition].first.push_back(r.p);
            by[r.partition].second.push_back(r.label);
        }
        for (auto &[name, v] : by) {
            auto e = evaluate_binary(v.first, v.second, thr);
            bool both = e.positives > 0 && e.positives < e.n;
            parts += "<tr><td>" + html_escape(name) + "</td><td>" + std::to_string(e.n) + "</td><td>" +
                     std::to_string(e.positives) + "</td><td>" + std::to_string(e.flagged()) + "</td><td>" +
                     (e.flagged() ? fmt("%.3f", e.precision) : "-") + "</td><td>" + (e.positives ? fmt("%.3f", e.recall) : "-") +
                     "</td><td>" + (both ? fmt("%.3f", e.pr_auc) : "-") + "</td></tr>";
        }
    }
    std::string classes;
    for (int k = 0; k < kFailureClasses; ++k) {
        size_t n = 0, caught = 0, right = 0;
        for (const auto &r : rows)
            if (r.actual_class == k) {
                ++n;
                caught += r.p >= thr;
                right += r.predicted_class == k;
            }
        classes += std::string("<tr><td>") + outcome_name(kFailureClassOutcomes[k]) + "</td><td>" + std::to_string(n) +
                   "</td><td>" + std::to_string(caught) + "</td><td>" +
                   (n ? fmt("%.3f", static_cast<double>(caught) / static_cast<double>(n)) : "-") + "</td><td>" +
                   (n ? fmt("%.1f%%", 100.0 * static_cast<double>(right) / static_cast<double>(n)) : "-") + "</td></tr>";
    }
    std::string features;
    {
        std::vector<int> order(kNumFeatures);
        for (int f = 0; f < kNumFeatures; ++f) order[static_cast<size_t>(f)] = f;
        std::sort(order.begin(), order.end(), [&](int x, int y) { return contrib_abs[static_cast<size_t>(x)] > contrib_abs[static_cast<size_t>(y)]; });
        for (size_t i = 0; i < 15 && i < order.size(); ++i) {
            size_t f = static_cast<size_t>(order[i]);
            if (contrib_abs[f] == 0) break;
            features += "<tr><td>" + std::string(feature_names()[f]) + "</td><td>" +
                        fmt("%.4f", contrib_abs[f] / static_cast<double>(rows.size())) + "</td><td>" +
                        (n_failed ? fmt("%+.4f", contrib_failed[f] / static_cast<double>(n_failed)) : "-") + "</td></tr>";
        }
        // A rules bundle has no contributions: the rule and the features it reads are what moves its score.
        if (bundle.is_rules() && bundle.rule())
            for (int f = 0; f < kNumFeatures; ++f)
                if (rule_reads(*bundle.rule(), f))
                    features += "<tr><td>" + std::string(feature_names()[static_cast<size_t>(f)]) + " (read by the rule '" +
                                html_escape(rule_label(*bundle.rule())) + "')</td><td>-</td><td>-</td></tr>";
    }
    auto cost_m = cost_at(p, labels, hours, thr), cost_b1 = cost_at(b1, labels, hours, 0.5), cost_b2 = cost_at(b2, labels, hours, 0.5);

    // Training metadata as rows of dotted keys ("training.rows.train"), not JSON.
    std::string meta;
    std::function<void(const std::string &, const nlohmann::json &)> flat = [&](const std::string &key, const nlohmann::json &v) {
        if (v.is_object()) {
            for (const auto &[k, x] : v.items()) flat(key.empty() ? k : key + "." + k, x);
            return;
        }
        std::string text;
        if (v.is_array()) {
            for (const auto &x : v) text += (text.empty() ? "" : ", ") + (x.is_string() ? x.get<std::string>() : x.dump());
        } else if (v.is_number_float()) {
            text = fmt("%.6g", v.get<double>());
        } else {
            text = v.is_string() ? v.get<std::string>() : v.dump();
        }
        if (text.size() > 300) text = text.substr(0, 300) + " ...";
        meta += "<tr><td>" + html_escape(key) + "</td><td style=\"text-align:left\">" + html_escape(text) + "</td></tr>";
    };
    for (const auto &[k, v] : bundle.metadata().items())
        if (k != "feature_schema" && k != "class_prior") flat(k, v);

    std::string h = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>jfp report: model " +
                    html_escape(bundle.model_id()) + "</title><style>" + kStyle + "</style></head><body>";
    h += "<h1>jfp: failure prediction report</h1><p class=\"note\">Model <b>" + html_escape(bundle.model_id()) + "</b> on " +
         std::to_string(m.n) + (m.n == 1 ? " finished job" : " finished jobs") + " submitted from " + format_sacct_time(after) + " (" + std::to_string(m.positives) +
         " failed, " + fmt("%.1f%%", 100 * base_rate) + "), store " + html_escape(d.db) +
         ". Every score is the one the plugin would have given at submission: features from jobs that ended before it.</p>";
    h += std::string("<p id=\"verdict\" style=\"font-size:16px;padding:8px;border-left:6px solid ") +
         (!verdict.fit ? "#c0392b" : verdict.target_reached ? "#27ae60" : "#e67e22") + "\"><b>" +
         html_escape(verdict.line.substr(0, verdict.line.find(':'))) + ":</b>" +
         html_escape(verdict.line.substr(verdict.line.find(':') + 1)) + "</p>";
    if (!bv.note.empty()) h += "<p class=\"note\" id=\"verdict-note\">(" + html_escape(bv.note) + ")</p>";
    h += "<h2>Summary</h2><table><tr><th></th><th>ROC-AUC</th><th>PR-AUC</th><th>recall at precision 0.9</th><th>threshold</th>"
         "<th>precision</th><th>recall</th><th>flagged</th></tr>";
    h += std::string("<tr><td>model (") + (bundle.is_rules() ? "a rule" : "trees") + ")</td>" + metrics_cells(m) + "</tr>";
    for (size_t k = 0; k < kNumRules; ++k)
        h += std::string("<tr><td>") + rule_label(kRules[k]) + "</td>" + metrics_cells(rule_m[k]) + "</tr>";
    h += "</table>";
    h += "<h2>Curves</h2><div class=\"charts\">" + roc.svg() + prc.svg() + "</div>";
    h += "<h2>Threshold and calibration</h2><div class=\"charts\">" + sweep.svg() + cal.svg() + hist.svg() + "</div>";
    h += "<h2>Cost at the threshold (core-hours = elapsed × CPUs)</h2><p class=\"note\">Failed jobs burnt " +
         fmt("%.1f", cost_m.failed_core_hours) +
         " core-hours. Flagged failed jobs are waste a rejection would have saved; flagged completed jobs are good work it would have blocked.</p>"
         "<table id=\"cost\"><tr><th></th><th>failed flagged</th><th>their core-hours</th><th>share of waste</th><th>good flagged</th><th>their core-hours</th></tr>";
    h += "<tr><td>model</td>" + cost_cells(cost_m) + "</tr><tr><td>last run of user+name failed</td>" + cost_cells(cost_b1) +
         "</tr><tr><td>user failure rate, recent runs</td>" + cost_cells(cost_b2) + "</tr></table>";
    h += waste_section_html(d.waste, thr, d.waste_unit, bundle);
    h += "<h2>Per partition</h2><table id=\"partitions\"><tr><th>partition</th><th>jobs</th><th>failed</th><th>flagged</th>"
         "<th>precision</th><th>recall</th><th>PR-AUC</th></tr>" + parts + "</table>";
    h += "<h2>Per failure class</h2><table id=\"classes\"><tr><th>class</th><th>jobs</th><th>flagged</th><th>recall</th>"
         "<th>class predicted right</th></tr>" + classes + "</table>";
    h += "<h2>Features that move scores most</h2><p class=\"note\">Mean absolute contribution to the margin over all jobs, "
         "and the mean signed contribution over failed jobs (Saabas, as the plugin's explanations use)." +
         std::string(bundle.is_rules() ? " A rules bundle has no trees: its score is the rule's, and its reason the history the rule read." : "") +
         "</p><table id=\"features\">"
         "<tr><th>feature</th><th>mean |contribution|</th><th>mean on failed jobs</th></tr>" + features + "</table>";
    if (d.scripts) h += script_section(d);
    if (d.live) h += live_report_html(*d.live, d.feature_log);
    h += "<h2>Training</h2><table id=\"metadata\">" + meta + "</table></body></html>\n";
    return h;

}

void write_report_page(const std::string &path, const std::string &html) {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    write_file_atomically(path, html, 0666 & ~mask, "tmp");
}

}  // namespace jfp
