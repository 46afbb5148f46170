#!/usr/bin/env bash
# OpEvo against random search, measured live, side by side:
#   tensortune tune --op gemm --shape 512,512,512 --tuner opevo  --trials 50 --seed 1
#   tensortune tune --op gemm --shape 512,512,512 --tuner random --trials 50 --seed 1
# each on its own fresh temporary database (no history shared), one after the other; prints
# the best GFLOPS of each. Nothing else should run meanwhile: the machine is measured.
#
# Environment: BUILD_DIR (default build-bench), TRIALS (50), SEED (1), SKIP_BUILD=1 to use an
# existing build, KEEP_DB=1 to keep the temporary databases.
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD_DIR:-build-bench}"
trials="${TRIALS:-50}"
seed="${SEED:-1}"
shape="512,512,512"

command -v python3 >/dev/null || { echo "opevo_live.sh: python3 is needed to read the JSON" >&2; exit 3; }

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  tools/install-deps.sh >&2
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSORTUNE_TESTS=OFF -DTENSORTUNE_BENCH=ON >/dev/null
  cmake --build "$build" --target tensortune tensortune-worker >&2
fi
tt="$build/bin/tensortune"

work="$(mktemp -d "${TMPDIR:-/tmp}/tt-opevo-live.XXXXXX")"
if [[ "${KEEP_DB:-0}" == 1 ]]; then
  echo "keeping $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi

date_utc="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
device_line="$("$tt" devices | sed -n 2p | sed -E 's/^ +//; s/  +/ | /g')"

for tuner in opevo random; do
  cmd=("$tt" tune --op gemm --shape "$shape" --tuner "$tuner" --trials "$trials" --seed "$seed"
       --db "$work/$tuner.db" --json)
  echo "running: ${cmd[*]}" >&2
  t0=$(date +%s)
  "${cmd[@]}" >"$work/$tuner.json"
  echo $(($(date +%s) - t0)) >"$work/$tuner.wall"
done

python3 - "$work" "$date_utc" "$device_line" "$(nproc)" <<'EOF'
import json, sys
work, date, device, nproc = sys.argv[1:5]
runs = {t: json.load(open(f"{work}/{t}.json")) for t in ("opevo", "random")}
walls = {t: open(f"{work}/{t}.wall").read().strip() for t in runs}
first = runs["opevo"]
print(f"GEMM {first['workload']}, {first['trials']} trials, seed {first['seed']} "
      f"({date}; device: {device}; nproc {nproc})\n")
print("| tuner | best GFLOPS | best time | statuses | wall | best config key |")
print("|---|---|---|---|---|---|")
for t, r in runs.items():
    b = r["best"] or {}
    statuses = ", ".join(f"{k} {v}" for k, v in sorted(r["statuses"].items()))
    print(f"| {t} | {b.get('gflops', 0.0):.2f} | {b.get('time_s', 0) * 1e3:.3f} ms | {statuses} | "
          f"{walls[t]} s | `{b.get('config_key', '-')}` |")
print("\n```json")
print(json.dumps(runs, indent=2))
print("```")
EOF
