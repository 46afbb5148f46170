#pragma once
// Bar charts and log-scale plots as inline SVG text, for reports that must be one
// self-contained file. Text is escaped; values that are not finite positive numbers where a
// log axis needs one are left out, and a bar of such a value is drawn empty.
#include <optional>
#include <string>
#include <vector>

#include "cli/svg_line_plot.h"

namespace tt {

// One horizontal bar: `value` drawn solid, `behind` (when set) drawn pale under it (e.g. the
// untuned time under the tuned one), `note` written after the bar.
struct BarRow {
  std::string label;
  double value = 0;
  std::optional<double> behind;
  std::string note;
};

// One bar per row, longest first as given; `id` names the <svg> element.
std::string SvgBars(const std::vector<BarRow>& rows, const std::string& value_label, const std::string& id);

struct StackSegment {
  std::string label;
  double value = 0;
};

// One horizontal bar split into coloured segments with a legend giving each value in `unit`.
std::string SvgStackedBar(const std::vector<StackSegment>& segments, const std::string& unit, const std::string& id);

struct ScatterPoint {
  double x = 0, y = 0;
  std::string title;  // shown when the pointer rests on the point
};

// Log-scale axes on both sides (decade ticks): `lines` drawn as polylines, `dashed` lines
// (reference lines such as a roofline's) drawn dashed, `points` drawn as dots.
struct LogPlot {
  std::string id, x_label, y_label;
  std::vector<PlotSeries> lines, dashed;
  std::vector<ScatterPoint> points;
};
std::string SvgLogPlot(const LogPlot& plot);

}  // namespace tt
