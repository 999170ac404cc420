// Small SVG charts for the self-contained HTML report: lines and step bars on linear axes, a legend, and
// marker lines. No scripts, no external references: the file opens the same anywhere, offline.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace jfp {

struct Series {
    std::string label;
    std::string color;  // CSS color
    std::vector<std::pair<double, double>> points;
    bool dashed = false;
    bool bars = false;  // draw as bars centred on x, of width bar_width
    double bar_width = 0;
};

struct Chart {
    std::string id;     // the <svg>'s id, for tests and links
    std::string title;
    std::string x_label, y_label;
    double x_min = 0, x_max = 1, y_min = 0, y_max = 1;
    int width = 520, height = 360;
    std::vector<Series> series;
    std::vector<std::pair<double, std::string>> x_markers;  // vertical lines with a label

    std::string svg() const;
};

// Escapes &, <, >, " and ' for HTML text and attributes.
std::string html_escape(const std::string &s);

}  // namespace jfp
