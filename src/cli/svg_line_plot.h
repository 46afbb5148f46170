#pragma once
// Line plots as inline SVG text, for reports that must be one self-contained file.
#include <string>
#include <vector>

namespace tt {

struct PlotSeries {
  std::string label;
  std::vector<double> y;  // y[i] is the value at x[i], or at x = i + 1 when x is empty
  std::vector<double> x;
};

// Axes from 0 to the largest value with round ticks, one coloured polyline and legend entry
// per series. Text is escaped. Values that are not finite numbers, or beyond what an axis can
// show, are drawn at the edge of the plot (a history may hold anything).
std::string SvgLinePlot(const std::vector<PlotSeries>& series, const std::string& x_label, const std::string& y_label);

std::string HtmlEscape(const std::string& text);

}  // namespace tt
