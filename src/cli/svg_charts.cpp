#include "cli/svg_charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace tt {
namespace {

constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

double Finite(double v) { return std::isfinite(v) && v > 0 ? v : 0; }

std::string Open(const std::string& id, double width, double height) {
  return fmt::format(R"svg(<svg xmlns="http://www.w3.org/2000/svg" id="{}" class="chart" width="{}" height="{}" )svg"
                     R"svg(viewBox="0 0 {} {}" font-family="sans-serif" font-size="11">)svg",
                     HtmlEscape(id), width, height, width, height);
}

// A log axis: whole decades around the finite positive values in [lo, hi].
struct LogAxis {
  double lo = 1, hi = 10;  // log10 of the ends
  void Fit(double min, double max) {
    if (!(min > 0) || !std::isfinite(min) || !(max > 0) || !std::isfinite(max)) return;
    lo = std::floor(std::log10(min));
    hi = std::ceil(std::log10(max));
    if (hi <= lo) hi = lo + 1;
  }
  double At(double v, double from, double length) const {  // v > 0
    return from + length * std::clamp((std::log10(v) - lo) / (hi - lo), 0.0, 1.0);
  }
};

std::string Decade(double exponent) {
  const double v = std::pow(10, exponent);
  return std::abs(exponent) <= 4 ? fmt::format("{:g}", v) : fmt::format("1e{:g}", exponent);
}

}  // namespace

std::string SvgBars(const std::vector<BarRow>& rows, const std::string& value_label, const std::string& id) {
  constexpr double kWidth = 1000, kLabel = 230, kBar = 420, kRow = 18;
  double top = 0;
  for (const auto& r : rows) top = std::max({top, Finite(r.value), Finite(r.behind.value_or(0))});
  if (top <= 0) top = 1;
  const double height = kRow * static_cast<double>(rows.size()) + 30;
  std::string svg = Open(id, kWidth, height);
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const double y = 4 + kRow * static_cast<double>(i);
    svg += fmt::format(R"svg(<text x="{}" y="{:.1f}" text-anchor="end">{}</text>)svg", kLabel - 6, y + 11,
                       HtmlEscape(r.label));
    if (r.behind)
      svg += fmt::format(R"svg(<rect x="{}" y="{:.1f}" width="{:.1f}" height="{}" fill="#c6dbef"/>)svg", kLabel, y,
                         kBar * Finite(*r.behind) / top, kRow - 4);
    svg += fmt::format(R"svg(<rect class="layer-bar" x="{}" y="{:.1f}" width="{:.1f}" height="{}" fill="#1f77b4">)svg"
                       R"svg(<title>{}</title></rect>)svg",
                       kLabel, y + 3, kBar * Finite(r.value) / top, kRow - 10, HtmlEscape(r.note));
    svg += fmt::format(R"svg(<text x="{:.1f}" y="{:.1f}">{}</text>)svg",
                       kLabel + kBar * std::max(Finite(r.value), Finite(r.behind.value_or(0))) / top + 6, y + 11,
                       HtmlEscape(r.note));
  }
  svg += fmt::format(R"svg(<text x="{}" y="{:.1f}">{} (longest bar {:.4g})</text>)svg", kLabel, height - 8,
                     HtmlEscape(value_label), top);
  return svg + "</svg>";
}

std::string SvgStackedBar(const std::vector<StackSegment>& segments, const std::string& unit, const std::string& id) {
  constexpr double kWidth = 700, kBar = 660, kLeft = 10;
  double total = 0;
  for (const auto& s : segments) total += Finite(s.value);
  const double height = 40 + 16 * static_cast<double>(segments.size());
  std::string svg = Open(id, kWidth, height);
  svg += fmt::format(R"svg(<rect x="{}" y="4" width="{}" height="22" fill="#eee"/>)svg", kLeft, kBar);
  double x = kLeft;
  for (size_t i = 0; i < segments.size(); ++i) {
    const char* colour = kColours[i % std::size(kColours)];
    const double w = total > 0 ? kBar * Finite(segments[i].value) / total : 0;
    svg += fmt::format(R"svg(<rect class="segment" x="{:.1f}" y="4" width="{:.1f}" height="22" fill="{}">)svg"
                       R"svg(<title>{}</title></rect>)svg",
                       x, w, colour, HtmlEscape(segments[i].label));
    x += w;
    const double share = total > 0 ? 100 * Finite(segments[i].value) / total : 0;
    const double ly = 44 + 16 * static_cast<double>(i);
    svg += fmt::format(R"svg(<rect x="{}" y="{}" width="10" height="10" fill="{}"/>)svg"
                       R"svg(<text x="{}" y="{}">{}: {:.3g} {} ({:.1f}%)</text>)svg",
                       kLeft, ly - 9, colour, kLeft + 16, ly, HtmlEscape(segments[i].label), segments[i].value,
                       HtmlEscape(unit), share);
  }
  return svg + "</svg>";
}

std::string SvgLogPlot(const LogPlot& plot) {
  constexpr double kWidth = 500, kHeight = 290, kLeft = 52, kRight = 112, kTop = 16, kBottom = 44;
  const double w = kWidth - kLeft - kRight, h = kHeight - kTop - kBottom;
  double x_min = INFINITY, x_max = 0, y_min = INFINITY, y_max = 0;
  const auto see = [&](double x, double y) {
    if (!(x > 0) || !(y > 0) || !std::isfinite(x) || !std::isfinite(y)) return;
    x_min = std::min(x_min, x), x_max = std::max(x_max, x), y_min = std::min(y_min, y), y_max = std::max(y_max, y);
  };
  for (const auto* group : {&plot.lines, &plot.dashed})
    for (const auto& s : *group)
      for (size_t i = 0; i < s.y.size() && i < s.x.size(); ++i) see(s.x[i], s.y[i]);
  for (const auto& p : plot.points) see(p.x, p.y);
  LogAxis ax, ay;
  ax.Fit(x_min, x_max);
  ay.Fit(y_min, y_max);
  const auto X = [&](double v) { return ax.At(v, kLeft, w); };
  const auto Y = [&](double v) { return kTop + h - ay.At(v, 0, h); };
  const auto ok = [](double x, double y) { return x > 0 && y > 0 && std::isfinite(x) && std::isfinite(y); };

  std::string svg = Open(plot.id, kWidth, kHeight);
  svg.reserve(4096 + 160 * plot.points.size());  // one allocation for the points of a roofline
  svg += fmt::format(R"svg(<rect x="{}" y="{}" width="{}" height="{}" fill="#fafafa" stroke="#999"/>)svg", kLeft, kTop,
                     w, h);
  for (double e = ax.lo; e <= ax.hi; ++e) {
    const double x = kLeft + w * (e - ax.lo) / (ax.hi - ax.lo);
    svg += fmt::format(R"svg(<line x1="{0:.1f}" x2="{0:.1f}" y1="{1}" y2="{2}" stroke="#ddd"/>)svg"
                       R"svg(<text x="{0:.1f}" y="{3}" text-anchor="middle">{4}</text>)svg",
                       x, kTop, kTop + h, kTop + h + 14, Decade(e));
  }
  for (double e = ay.lo; e <= ay.hi; ++e) {
    const double y = kTop + h - h * (e - ay.lo) / (ay.hi - ay.lo);
    svg += fmt::format(R"svg(<line x1="{0}" x2="{1}" y1="{2:.1f}" y2="{2:.1f}" stroke="#ddd"/>)svg"
                       R"svg(<text x="{3}" y="{4:.1f}" text-anchor="end">{5}</text>)svg",
                       kLeft, kLeft + w, y, kLeft - 4, y + 4, Decade(e));
  }
  svg += fmt::format(R"svg(<text x="{}" y="{}" text-anchor="middle">{} (log scale)</text>)svg", kLeft + w / 2,
                     kHeight - 6, HtmlEscape(plot.x_label));
  svg += fmt::format(R"svg(<text transform="translate(14 {}) rotate(-90)" text-anchor="middle">{} (log)</text>)svg",
                     kTop + h / 2, HtmlEscape(plot.y_label));
  size_t legend = 0;
  const auto draw = [&](const PlotSeries& s, const char* colour, const char* dash) {
    std::string points;
    for (size_t i = 0; i < s.y.size() && i < s.x.size(); ++i)
      if (ok(s.x[i], s.y[i])) points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", X(s.x[i]), Y(s.y[i]));
    svg += fmt::format(R"svg(<polyline class="line" fill="none" stroke="{}" stroke-width="1.5"{} points="{}"/>)svg",
                       colour, dash, points);
    const double ly = kTop + 8 + 16 * static_cast<double>(legend++);
    svg += fmt::format(R"svg(<line x1="{0}" x2="{1}" y1="{2}" y2="{2}" stroke="{3}" stroke-width="3"{4}/>)svg"
                       R"svg(<text x="{5}" y="{6}">{7}</text>)svg",
                       kWidth - kRight + 10, kWidth - kRight + 28, ly, colour, dash, kWidth - kRight + 32, ly + 4,
                       HtmlEscape(s.label));
  };
  for (size_t k = 0; k < plot.lines.size(); ++k) draw(plot.lines[k], kColours[k % std::size(kColours)], "");
  for (const auto& s : plot.dashed) draw(s, "#555", R"svg( stroke-dasharray="6 3")svg");
  for (const auto& p : plot.points)
    if (ok(p.x, p.y))
      svg += fmt::format(R"svg(<circle class="point" cx="{:.1f}" cy="{:.1f}" r="4" fill="#d62728" )svg"
                         R"svg(fill-opacity="0.7"><title>{}</title></circle>)svg",
                         X(p.x), Y(p.y), HtmlEscape(p.title));
  return svg + "</svg>";
}

}  // namespace tt
