#!/usr/bin/env python3
"""Draws the plots of docs/results.md as SVG files under docs/img/, from docs/results-data.json.

Python's standard library only (no plotting package needed). Each plotted section of the data
file has a title, a source, a unit, series names, optional reference marks and rows of
(label, one value per series); it becomes one horizontal grouped bar chart.

    tools/plot_results.py [DATA.json] [OUT_DIR]
"""
import json
import sys
from html import escape
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLOTS = ["gemm", "conv", "depthwise"]  # sections of the data file that get a plot
COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]

LABEL_W = 250  # left margin for row labels
PLOT_W = 460
BAR_H = 12
BAR_GAP = 2
ROW_GAP = 8
TOP = 58
FONT = "font-family='sans-serif'"


# Axis ends as multiples of a power of ten, with the number of ticks that gives round steps.
NICE = [(1, 5), (1.2, 6), (1.5, 6), (2, 4), (2.5, 5), (3, 6), (4, 4), (5, 5), (6, 6), (8, 4), (10, 5)]


def nice_axis(value):
    """The smallest nice axis end at or above value, and its tick count."""
    power = 1.0
    while power * 10 < value:
        power *= 10
    while power > value:
        power /= 10
    for m, ticks in NICE:
        if power * m >= value:
            return power * m, ticks
    return power * 10, 5


def bar_chart(section):
    series = section["series"]
    rows = section["rows"]
    marks = section.get("marks", [])
    top_value = max([v for r in rows for v in r["values"]] + marks)
    x_max, ticks = nice_axis(top_value * 1.05)
    row_h = len(series) * (BAR_H + BAR_GAP) + ROW_GAP
    plot_h = len(rows) * row_h
    legend_h = 18 * len(series) if len(series) > 1 else 0
    height = TOP + plot_h + 40 + legend_h + 20
    width = LABEL_W + PLOT_W + 60

    def x(v):
        return LABEL_W + PLOT_W * v / x_max

    out = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}' {FONT} font-size='11'>",
        f"<rect width='{width}' height='{height}' fill='white'/>",
        f"<text x='10' y='20' font-size='14' font-weight='bold'>{escape(section['title'])}</text>",
        f"<text x='10' y='38' fill='#555'>{escape(section['source'])}</text>",
    ]
    # Grid and axis ticks.
    for i in range(ticks + 1):
        v = x_max * i / ticks
        xv = x(v)
        out.append(f"<line x1='{xv:.1f}' y1='{TOP - 4}' x2='{xv:.1f}' y2='{TOP + plot_h}' stroke='#ddd'/>")
        out.append(f"<text x='{xv:.1f}' y='{TOP + plot_h + 14}' text-anchor='middle'>{round(v, 6):g}</text>")
    out.append(
        f"<text x='{LABEL_W + PLOT_W / 2:.1f}' y='{TOP + plot_h + 30}' text-anchor='middle'>"
        f"{escape(section['unit'])}</text>"
    )
    for m in marks:
        xm = x(m)
        out.append(
            f"<line x1='{xm:.1f}' y1='{TOP - 4}' x2='{xm:.1f}' y2='{TOP + plot_h}' "
            f"stroke='#333' stroke-dasharray='4,3'/>"
        )
    # Bars.
    for r, row in enumerate(rows):
        y0 = TOP + r * row_h
        label_y = y0 + len(series) * (BAR_H + BAR_GAP) / 2 + 4
        out.append(f"<text x='{LABEL_W - 8}' y='{label_y:.1f}' text-anchor='end'>{escape(row['label'])}</text>")
        for s, value in enumerate(row["values"]):
            y = y0 + s * (BAR_H + BAR_GAP)
            w = x(value) - LABEL_W
            colour = COLOURS[s % len(COLOURS)]
            out.append(f"<rect x='{LABEL_W}' y='{y:.1f}' width='{w:.1f}' height='{BAR_H}' fill='{colour}'/>")
            text = f"{value:.3f}" if value < 10 else f"{value:.1f}"
            out.append(f"<text x='{x(value) + 4:.1f}' y='{y + BAR_H - 2:.1f}' font-size='10'>{text}</text>")
    out.append(f"<line x1='{LABEL_W}' y1='{TOP - 4}' x2='{LABEL_W}' y2='{TOP + plot_h}' stroke='#333'/>")
    # Legend.
    if len(series) > 1:
        ly = TOP + plot_h + 44
        for s, name in enumerate(series):
            colour = COLOURS[s % len(COLOURS)]
            out.append(f"<rect x='{LABEL_W}' y='{ly + 18 * s}' width='12' height='12' fill='{colour}'/>")
            out.append(f"<text x='{LABEL_W + 18}' y='{ly + 18 * s + 10}'>{escape(name)}</text>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    data_path = Path(argv[1]) if len(argv) > 1 else ROOT / "docs" / "results-data.json"
    out_dir = Path(argv[2]) if len(argv) > 2 else ROOT / "docs" / "img"
    data = json.loads(data_path.read_text())
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in PLOTS:
        path = out_dir / f"results-{name}.svg"
        path.write_text(bar_chart(data[name]))
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
