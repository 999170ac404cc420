#include "tools/evaluate/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace jfp {

std::string html_escape(const std::string &s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

namespace {

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

std::string tick_label(double v) {
    char buf[32];
    if (std::fabs(v) >= 1000) std::snprintf(buf, sizeof buf, "%.0f", v);
    else if (std::fabs(v - std::round(v)) < 1e-9) std::snprintf(buf, sizeof buf, "%.0f", v);
    else std::snprintf(buf, sizeof buf, "%.2g", v);
    return buf;
}

}  // namespace

std::string Chart::svg() const {
    const double left = 56, right = 16, top = 30, bottom = 46;
    const double pw = width - left - right, ph = height - top - bottom;
    double xr = x_max > x_min ? x_max - x_min : 1, yr = y_max > y_min ? y_max - y_min : 1;
    auto X = [&](double x) { return left + (std::clamp(x, x_min, x_max) - x_min) / xr * pw; };
    auto Y = [&](double y) { return top + ph - (std::clamp(y, y_min, y_max) - y_min) / yr * ph; };

    // The legend goes below the plot, two entries a row, so it never covers a curve.
    const int legend_rows = static_cast<int>((series.size() + 1) / 2);
    const int total_height = height + 16 * legend_rows;
    std::string s = "<svg id=\"" + html_escape(id) + "\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(width) + "\" height=\"" + std::to_string(total_height) + "\" viewBox=\"0 0 " +
                    std::to_string(width) + " " + std::to_string(total_height) + "\" role=\"img\" aria-label=\"" +
                    html_escape(title) + "\">";
    s += "<title>" + html_escape(title) + "</title>";
    s += "<text x=\"" + num(left) + "\" y=\"18\" class=\"ct\">" + html_escape(title) + "</text>";
    // Grid and ticks: five intervals on each axis.
    for (int i = 0; i <= 5; ++i) {
        double xv = x_min + xr * i / 5, yv = y_min + yr * i / 5;
        s += "<line x1=\"" + num(X(xv)) + "\" y1=\"" + num(top) + "\" x2=\"" + num(X(xv)) + "\" y2=\"" + num(top + ph) +
             "\" class=\"grid\"/>";
        s += "<line x1=\"" + num(left) + "\" y1=\"" + num(Y(yv)) + "\" x2=\"" + num(left + pw) + "\" y2=\"" + num(Y(yv)) +
             "\" class=\"grid\"/>";
        s += "<text x=\"" + num(X(xv)) + "\" y=\"" + num(top + ph + 14) + "\" text-anchor=\"middle\" class=\"tick\">" +
             tick_label(xv) + "</text>";
        s += "<text x=\"" + num(left - 4) + "\" y=\"" + num(Y(yv) + 4) + "\" text-anchor=\"end\" class=\"tick\">" +
             tick_label(yv) + "</text>";
    }
    s += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(pw) + "\" height=\"" + num(ph) +
         "\" class=\"frame\"/>";
    s += "<text x=\"" + num(left + pw / 2) + "\" y=\"" + num(height - 8.0) + "\" text-anchor=\"middle\" class=\"axis\">" +
         html_escape(x_label) + "</text>";
    s += "<text transform=\"translate(14," + num(top + ph / 2) + ") rotate(-90)\" text-anchor=\"middle\" class=\"axis\">" +
         html_escape(y_label) + "</text>";

    for (const auto &sr : series) {
        if (sr.bars) {
            for (const auto &[x, y] : sr.points) {
                double x0 = X(x - sr.bar_width / 2), x1 = X(x + sr.bar_width / 2);
                s += "<rect x=\"" + num(x0) + "\" y=\"" + num(Y(y)) + "\" width=\"" + num(std::max(0.5, x1 - x0 - 1)) +
                     "\" height=\"" + num(Y(y_min) - Y(y)) + "\" fill=\"" + sr.color + "\" fill-opacity=\"0.45\"><title>" +
                     html_escape(sr.label) + ": " + tick_label(x) + " → " + tick_label(y) + "</title></rect>";
            }
            continue;
        }
        if (sr.points.empty()) continue;
        s += "<polyline fill=\"none\" stroke=\"" + sr.color + "\" stroke-width=\"2\"" +
             (sr.dashed ? " stroke-dasharray=\"5,4\"" : "") + " points=\"";
        for (const auto &[x, y] : sr.points) s += num(X(x)) + "," + num(Y(y)) + " ";
        s += "\"><title>" + html_escape(sr.label) + "</title></polyline>";
    }
    for (const auto &[x, label] : x_markers) {
        s += "<line x1=\"" + num(X(x)) + "\" y1=\"" + num(top) + "\" x2=\"" + num(X(x)) + "\" y2=\"" + num(top + ph) +
             "\" class=\"marker\"/>";
        s += "<text x=\"" + num(X(x) + 4) + "\" y=\"" + num(top + 12) + "\" class=\"tick\">" + html_escape(label) + "</text>";
    }
    for (size_t i = 0; i < series.size(); ++i) {
        const Series &sr = series[i];
        double lx = left + (i % 2 ? pw / 2 : 0), ly = height + 4 + 16.0 * static_cast<double>(i / 2);
        s += "<rect x=\"" + num(lx) + "\" y=\"" + num(ly) + "\" width=\"12\" height=\"4\" fill=\"" + sr.color + "\"/>";
        s += "<text x=\"" + num(lx + 16) + "\" y=\"" + num(ly + 6) + "\" class=\"legend\">" + html_escape(sr.label) + "</text>";
    }
    s += "</svg>";
    return s;
}

}  // namespace jfp
