#!/usr/bin/env bash
# What `tensortune best` answers for a workload nobody tuned, against what tuning it finds.
# For every shape (default: ResNet-18's families at other channel counts and image sizes, as a
# pruned or widened network has them): `best` on the history HISTORY_DB (its fallback from the
# most similar tuned workload, sketch and config), that config measured with every knob pinned,
# then the same sketch tuned from nothing with TRIALS trials (default 48, the default tuner),
# both on one core (CPU, default 0) with one POCL thread, fresh databases and POCL caches.
# Then both configs are timed again the same way, pinned, alternating, ROUNDS times: the tuned
# time that the search recorded is the fastest of TRIALS noisy measurements, the fallback's
# one, so only the pinned re-timings compare like with like.
# Prints a table: the fallback's time, the tuned config's time (medians of the rounds; the
# search's own record in brackets), and the fallback's speed relative to the tuned config's
# (1.00: as good as tuning).
#
#   bench/never_tuned.sh HISTORY_DB
# Environment: TRIALS (48), ROUNDS (3), CPU (0), SEED (1), BUILD_DIR (build-bench), SHAPES (conv2d shapes,
# space-separated, replacing the defaults).
set -euo pipefail
cd "$(dirname "$0")/.."
history="${1:?usage: bench/never_tuned.sh HISTORY_DB}"
[[ -f "$history" ]] || { echo "never_tuned.sh: $history does not exist" >&2; exit 2; }
build="${BUILD_DIR:-build-bench}"
trials="${TRIALS:-48}"
rounds="${ROUNDS:-3}"
cpu="${CPU:-0}"
seed="${SEED:-1}"
[[ -x "$build/bin/tensortune" ]] || { echo "never_tuned.sh: $build/bin/tensortune is missing" >&2; exit 3; }
# shellcheck disable=SC2054  # the commas belong to tensortune shapes
default_shapes=(
  n=1,ci=96,h=40,w=40,co=96,kh=3,kw=3,stride=1,pad=1
  n=1,ci=192,h=20,w=20,co=192,kh=3,kw=3,stride=1,pad=1
  n=1,ci=320,h=10,w=10,co=320,kh=3,kw=3,stride=1,pad=1
  n=1,ci=96,h=40,w=40,co=192,kh=3,kw=3,stride=2,pad=1
  n=1,ci=192,h=20,w=20,co=384,kh=3,kw=3,stride=2,pad=1
  n=1,ci=96,h=40,w=40,co=192,kh=1,kw=1,stride=2,pad=0
  n=1,ci=3,h=160,w=160,co=48,kh=7,kw=7,stride=2,pad=3
)
read -r -a shapes <<<"${SHAPES:-${default_shapes[*]}}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
. bench/pocl_affinity.sh
tt() { POCL_AFFINITY="$(pocl_affinity "$cpu" 1)" POCL_MAX_PTHREAD_COUNT=1 POCL_CACHE_DIR="$work/pocl-$1" taskset -c "$cpu" "$build/bin/tensortune" "${@:2}"; }
field() { /usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for key in sys.argv[2].split("."):
    d = (d or {}).get(key)
print(d if d is not None else "-")' "$1" "$2"; }

echo "bench/never_tuned.sh at commit $(git rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "history: $history; $trials trials of its own (default tuner, seed $seed); one core ($cpu), one POCL thread; $rounds pinned rounds a side"
echo
echo "| shape | sketch | transferred from (match) | fallback ms | tuned config ms (search's record) | fallback speed vs tuned |"
echo "|---|---|---|---:|---:|---:|"
# The config (a config_key, knobs joined by ';') of sketch $3 on shape $2, every knob pinned,
# timed once on a fresh database; prints its time in seconds or '-'.
pinned_time() {
  local pins=() knob
  IFS=';' read -r -a knobs <<<"$4"
  for knob in "${knobs[@]}"; do pins+=(--pin "$knob"); done
  tt "$1" tune --op conv2d --shape "$2" --template "$3" --tuner random --trials 1 "${pins[@]}" \
    --builders 0 --min-time 0.3 --retime-share 0 --db "$work/$1.db" --json --progress none >"$work/pinned.json"
  rm -f "$work/$1.db"
  field "$work/pinned.json" best.time_s
}
median() { /usr/bin/python3 -c 'import statistics, sys
r = [float(x) for x in sys.argv[1:] if x != "-"]
print(statistics.median(r) if r else "-")' "$@"; }
ratios=()
for shape in "${shapes[@]}"; do
  i=${#ratios[@]}
  tt "b$i" best --op conv2d --shape "$shape" --db "$history" >"$work/best.json"
  sketch="$(field "$work/best.json" template)"
  fallback_key="$(field "$work/best.json" config_key)"
  tt "t$i" tune --op conv2d --shape "$shape" --template "$sketch" --trials "$trials" --seed "$seed" \
    --builders 0 --min-time 0.3 --db "$work/tuned-$i.db" --json --progress none >"$work/tuned.json"
  recorded="$(field "$work/tuned.json" best.time_s)"
  tuned_key="$(field "$work/tuned.json" best.config_key)"
  fallback_times=() tuned_times=()
  for ((r = 0; r < rounds; ++r)); do
    fallback_times+=("$(pinned_time "f$i-$r" "$shape" "$sketch" "$fallback_key")")
    tuned_times+=("$(pinned_time "p$i-$r" "$shape" "$sketch" "$tuned_key")")
  done
  fallback="$(median "${fallback_times[@]}")" tuned="$(median "${tuned_times[@]}")"
  ratio="$(/usr/bin/python3 -c 'import sys
f, t = sys.argv[1:]
print("%.2f" % (float(t) / float(f)) if "-" not in (f, t) else "-")' "$fallback" "$tuned")"
  ratios+=("$ratio")
  from="$(field "$work/best.json" source_workload | sed 's/^conv2d://; s/,dilation=1//')"
  match="$(field "$work/best.json" match_score)"
  /usr/bin/python3 -c 'import sys
shape, sketch, origin, match, f, t, rec, r = sys.argv[1:]
ms = lambda s: "%.3f" % (float(s) * 1e3) if s != "-" else "-"
m = "%.2f" % float(match) if match != "-" else "-"
print(f"| {shape} | {sketch} | {origin} ({m}) | {ms(f)} | {ms(t)} ({ms(rec)}) | {r} |")' \
    "${shape/,dilation=1/}" "$sketch" "$from" "$match" "$fallback" "$tuned" "$recorded" "$ratio"
done
echo
/usr/bin/python3 -c 'import statistics, sys
r = [float(x) for x in sys.argv[2:] if x != "-"]
print(f"fallback speed vs {sys.argv[1]} trials of its own: median " + ("%.2f" % statistics.median(r) if r else "-")
      + ", lowest " + ("%.2f" % min(r) if r else "-"))' "$trials" "${ratios[@]}"
