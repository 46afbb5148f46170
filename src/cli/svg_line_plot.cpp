#include "cli/svg_line_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tt {
namespace {

constexpr double kWidth = 640, kHeight = 300, kLeft = 64, kRight = 170, kTop = 16, kBottom = 44;
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

// A round step giving about five ticks up to `top`.
double TickStep(double top) {
  const double raw = top / 5, magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

}  // namespace

std::string HtmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string SvgLinePlot(const std::vector<PlotSeries>& series, const std::string& x_label, const std::string& y_label) {
  size_t n = 1;
  double top = 0;
  for (const auto& s : series) {
    n = std::max(n, s.y.size());
    for (double v : s.y) top = std::max(top, v);
  }
  if (top <= 0) top = 1;
  const double step = TickStep(top);
  top = std::ceil(top / step) * step;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const auto x = [&](double i) { return kLeft + (n == 1 ? plot_w / 2 : plot_w * (i - 1) / static_cast<double>(n - 1)); };
  const auto y = [&](double v) { return kTop + plot_h * (1 - v / top); };

  std::string svg = fmt::format(R"svg(<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}" )svg"
                                R"svg(font-family="sans-serif" font-size="11">)svg", kWidth, kHeight, kWidth, kHeight);
  svg += fmt::format(R"svg(<rect x="{}" y="{}" width="{}" height="{}" fill="#fafafa" stroke="#999"/>)svg", kLeft, kTop, plot_w, plot_h);
  for (double v = 0; v <= top * (1 + 1e-9); v += step)
    svg += fmt::format(R"svg(<line x1="{0}" x2="{1}" y1="{2:.1f}" y2="{2:.1f}" stroke="#ddd"/><text x="{3}" y="{4:.1f}" )svg"
                       R"svg(text-anchor="end">{5:g}</text>)svg", kLeft, kLeft + plot_w, y(v), kLeft - 4, y(v) + 4, v);
  const double x_step = std::max(1.0, TickStep(static_cast<double>(n)));
  for (double i = 1; i <= static_cast<double>(n); i += (i == 1 && x_step > 1 ? x_step - 1 : x_step))
    svg += fmt::format(R"svg(<text x="{:.1f}" y="{}" text-anchor="middle">{:g}</text>)svg", x(i), kTop + plot_h + 14, i);
  svg += fmt::format(R"svg(<text x="{}" y="{}" text-anchor="middle">{}</text>)svg", kLeft + plot_w / 2, kHeight - 6, HtmlEscape(x_label));
  svg += fmt::format(R"svg(<text transform="translate(14 {}) rotate(-90)" text-anchor="middle">{}</text>)svg", kTop + plot_h / 2,
                     HtmlEscape(y_label));
  for (size_t k = 0; k < series.size(); ++k) {
    const char* colour = kColours[k % std::size(kColours)];
    std::string points;
    for (size_t i = 0; i < series[k].y.size(); ++i)
      points += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", x(static_cast<double>(i + 1)), y(series[k].y[i]));
    if (series[k].y.size() == 1)  // a polyline of one point draws nothing
      svg += fmt::format(R"svg(<circle cx="{:.1f}" cy="{:.1f}" r="3" fill="{}"/>)svg", x(1), y(series[k].y[0]), colour);
    else
      svg += fmt::format(R"svg(<polyline fill="none" stroke="{}" stroke-width="1.5" points="{}"/>)svg", colour, points);
    const double ly = kTop + 8 + 16 * static_cast<double>(k);
    svg += fmt::format(R"svg(<line x1="{0}" x2="{1}" y1="{2}" y2="{2}" stroke="{3}" stroke-width="3"/><text x="{4}" y="{5}">{6}</text>)svg",
                       kWidth - kRight + 10, kWidth - kRight + 28, ly, colour, kWidth - kRight + 32, ly + 4,
                       HtmlEscape(series[k].label));
  }
  return svg + "</svg>";
}

}  // namespace tt
