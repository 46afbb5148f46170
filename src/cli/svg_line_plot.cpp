#include "cli/svg_line_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace tt {
namespace {

constexpr double kWidth = 640, kHeight = 300, kLeft = 64, kRight = 170, kTop = 16, kBottom = 44;
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

// A round step giving about five ticks up to `top` (a positive finite number).
double TickStep(double top) {
  const double raw = top / 5, magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

// An axis from 0 to `top` (any value): its end and the step between its ticks, with at most
// ten ticks and both finite.
std::pair<double, double> Axis(double top) {
  if (!(top > 0) || !std::isfinite(top)) top = 1;
  double step = TickStep(top);
  const double end = std::ceil(top / step) * step;
  if (!std::isfinite(end) || !(step > 0)) return {top, top / 5};  // past the largest double
  return {end, step};
}

double XOf(const PlotSeries& s, size_t i) { return s.x.empty() ? static_cast<double>(i + 1) : s.x[i]; }

}  // namespace

std::string HtmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string SvgLinePlot(const std::vector<PlotSeries>& series, const std::string& x_label, const std::string& y_label) {
  double n = 1, top = 0;
  for (const auto& s : series)
    for (size_t i = 0; i < s.y.size(); ++i) {
      if (std::isfinite(XOf(s, i))) n = std::max(n, XOf(s, i));
      if (std::isfinite(s.y[i])) top = std::max(top, s.y[i]);
    }
  const auto [y_end, step] = Axis(top);
  top = y_end;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const auto clamp = [](double v, double high) { return std::isnan(v) ? 0 : std::clamp(v, 0.0, high); };
  const auto x = [&](double i) { return kLeft + (n <= 1 ? plot_w / 2 : plot_w * (clamp(i, n) - 1) / (n - 1)); };
  const auto y = [&](double v) { return kTop + plot_h * (1 - clamp(v, top) / top); };

  std::string svg =
      fmt::format(R"svg(<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}" )svg"
                  R"svg(font-family="sans-serif" font-size="11">)svg",
                  kWidth, kHeight, kWidth, kHeight);
  svg += fmt::format(R"svg(<rect x="{}" y="{}" width="{}" height="{}" fill="#fafafa" stroke="#999"/>)svg", kLeft, kTop,
                     plot_w, plot_h);
  for (int tick = 0; tick <= 10 && tick * step <= top * (1 + 1e-9); ++tick) {
    const double v = tick * step;
    svg += fmt::format(
        R"svg(<line x1="{0}" x2="{1}" y1="{2:.1f}" y2="{2:.1f}" stroke="#ddd"/><text x="{3}" y="{4:.1f}" )svg"
        R"svg(text-anchor="end">{5:g}</text>)svg",
        kLeft, kLeft + plot_w, y(v), kLeft - 4, y(v) + 4, v);
  }
  const double x_step = std::max(1.0, Axis(n).second);
  int x_ticks = 0;
  for (double i = 1; i <= n && x_ticks++ < 12; i += (i == 1 && x_step > 1 ? x_step - 1 : x_step))
    svg +=
        fmt::format(R"svg(<text x="{:.1f}" y="{}" text-anchor="middle">{:g}</text>)svg", x(i), kTop + plot_h + 14, i);
  svg += fmt::format(R"svg(<text x="{}" y="{}" text-anchor="middle">{}</text>)svg", kLeft + plot_w / 2, kHeight - 6,
                     HtmlEscape(x_label));
  svg += fmt::format(R"svg(<text transform="translate(14 {}) rotate(-90)" text-anchor="middle">{}</text>)svg",
                     kTop + plot_h / 2, HtmlEscape(y_label));
  for (size_t k = 0; k < series.size(); ++k) {
    const char* colour = kColours[k % std::size(kColours)];
    std::string points;
    for (size_t i = 0; i < series[k].y.size(); ++i)
      points += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", x(XOf(series[k], i)), y(series[k].y[i]));
    if (series[k].y.size() == 1)  // a polyline of one point draws nothing
      svg += fmt::format(R"svg(<circle cx="{:.1f}" cy="{:.1f}" r="3" fill="{}"/>)svg", x(XOf(series[k], 0)),
                         y(series[k].y[0]), colour);
    else
      svg += fmt::format(R"svg(<polyline fill="none" stroke="{}" stroke-width="1.5" points="{}"/>)svg", colour, points);
    const double ly = kTop + 8 + 16 * static_cast<double>(k);
    svg += fmt::format(
        R"svg(<line x1="{0}" x2="{1}" y1="{2}" y2="{2}" stroke="{3}" stroke-width="3"/><text x="{4}" y="{5}">{6}</text>)svg",
        kWidth - kRight + 10, kWidth - kRight + 28, ly, colour, kWidth - kRight + 32, ly + 4,
        HtmlEscape(series[k].label));
  }
  return svg + "</svg>";
}

}  // namespace tt
