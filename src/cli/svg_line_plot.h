#pragma once
// Line plots as inline SVG text, for reports that must be one self-contained file.
#include <string>
#include <vector>

namespace tt {

struct PlotSeries {
  std::string label;
  std::vector<double> y;  // y[i] is the value at x = i + 1
};

// Axes from 0 to the largest value with round ticks, one coloured polyline and legend entry
// per series. Text is escaped.
std::string SvgLinePlot(const std::vector<PlotSeries>& series, const std::string& x_label, const std::string& y_label);

std::string HtmlEscape(const std::string& text);

}  // namespace tt
