#!/usr/bin/env bash
# Renders a `tensortune report` page in headless chromium (a Debian package, installed when
# missing) and checks that it draws: the screenshot is not blank, the plots' SVG lines are on
# it, every chart named after the page is in the rendered DOM with something drawn in it, and
# the page logs nothing to the console (its only script sorts tables on a click, so any
# console message is an error).
#
#   tools/check-report.sh [report.html [chart-id ...]]
#   SHOT=first-screen.png tools/check-report.sh report.html   # also keep the screenshot
#
# Without an argument it builds a report first: TopHub's sample records imported, plus two
# short GEMM runs on the default OpenCL device (POCL), so that there is a convergence to plot.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null; then
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
report=${1:-}
charts=("${@:2}")
if [[ -z "$report" ]]; then
  bin=build/bin/tensortune
  [[ -x $bin ]] || { echo "build tensortune first (tools/test.sh)"; exit 2; }
  $bin import tests/data/tophub_sample.log --db "$work/h.db" >/dev/null
  for tuner in random opevo; do
    $bin tune --op gemm --shape 32,32,32 --trials 16 --tuner "$tuner" --min-time 0.005 --db "$work/h.db" --json >/dev/null
  done
  report="$work/report.html"
  $bin report --db "$work/h.db" --out "$report"
fi

grep -q "<polyline" "$report" || { echo "FAIL: $report has no plotted line"; exit 1; }
timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,1400 \
  --enable-logging=stderr --v=0 --screenshot="$work/shot.png" "file://$(realpath "$report")" >"$work/chromium.log" 2>&1 || {
  cat "$work/chromium.log"; echo "FAIL: chromium did not render $report"; exit 1; }
if grep -E ":CONSOLE[:(]|Uncaught" "$work/chromium.log"; then
  echo "FAIL: console messages while rendering $report"
  exit 1
fi
timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$(realpath "$report")" \
  >"$work/dom.html" 2>/dev/null || { echo "FAIL: chromium did not dump the DOM of $report"; exit 1; }
for id in "${charts[@]}"; do
  # The chart's <svg> element up to its end must hold a drawn mark.
  python3 - "$work/dom.html" "$id" <<'PY' || { echo "FAIL: chart $id is missing or empty in the rendered page"; exit 1; }
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<svg[^>]* id="%s"[^>]*>(.*?)</svg>' % re.escape(sys.argv[2]), dom, re.S)
sys.exit(0 if m and re.search(r'<(polyline|circle|rect class="(layer-bar|segment)")[^>]*(points="[^"]+"|cx=|width="[1-9])', m.group(1)) else 1)
PY
done
[[ -n "${SHOT:-}" ]] && cp "$work/shot.png" "$SHOT"
stats=$(python3 tools/png_stats.py "$work/shot.png")
drawn=$(sed -E 's/drawn=([0-9.]+).*/\1/' <<<"$stats")
coloured=$(sed -E 's/.*coloured=([0-9]+)/\1/' <<<"$stats")
echo "screenshot: $stats"
python3 -c "import sys; sys.exit(0 if $drawn > 0.01 and $coloured > 500 else 1)" || {
  echo "FAIL: the screenshot is blank or shows no coloured plot lines"; exit 1; }
echo "OK: $report renders in headless chromium"
