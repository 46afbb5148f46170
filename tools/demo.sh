#!/usr/bin/env bash
# A newcomer's first command: installs what is missing, builds, tunes a whole network with the
# default tuner and a small budget on the default OpenCL device (POCL, the CPU), exports its
# kernels and runs the network with them, then prints its measured speed next to the same
# network run at every layer's untuned template default.
#
# Environment: NETWORK (resnet18), TRIALS (48), WORK (a directory for the database, the kernel
# pack and the outputs; default: a new one under ${TMPDIR:-/tmp}). Extra arguments go to
# tune-network (e.g. --time-limit 120).
set -euo pipefail
cd "$(dirname "$0")/.."
network="${NETWORK:-resnet18}"
trials="${TRIALS:-48}"
work="${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/tensortune-demo.XXXXXX")}"
mkdir -p "$work"

tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSORTUNE_TESTS=OFF >/dev/null
cmake --build build --target tensortune tensortune-worker
tt=build/bin/tensortune
$tt devices

echo
echo "== 1. tune-network $network --trials $trials (default tuner), into $work/history.db"
start=$(date +%s)
$tt tune-network "$network" --trials "$trials" --db "$work/history.db" "$@"
echo "tuning took $(($(date +%s) - start)) s"

echo
echo "== 2. export-kernels, then run-network with the tuned kernels"
rm -rf "$work/pack"
$tt export-kernels "$network" --db "$work/history.db" --out "$work/pack" >/dev/null
$tt run-network "$network" --pack "$work/pack" --json >"$work/tuned.json"

echo "== 3. run-network never tuned: an empty history (each layer at its device's starting config)"
rm -f "$work/empty.db"
$tt sql --write --db "$work/empty.db" "SELECT 1" >/dev/null  # a history with nothing in it
$tt run-network "$network" --db "$work/empty.db" --json >"$work/never.json"

echo "== 4. run-network at every layer's untuned template default"
$tt run-network "$network" --untuned --json >"$work/default.json"

python3 - "$work/tuned.json" "$work/never.json" "$work/default.json" "$network" "$trials" <<'PY'
import json, sys
tuned, never, default = (json.load(open(p)) for p in sys.argv[1:4])
t, n, d = (r["measured_latency_s"] for r in (tuned, never, default))
print(f"\n{sys.argv[4]} on {tuned['device']}, measured by run-network (every layer checked against the CPU reference):")
rows = [(f"tuned with {sys.argv[5]} trials", t, ""), ("never tuned (starting configs)", n, f"   ({n / t:.1f}x slower)"),
        ("untuned template defaults", d, f"   ({d / t:.1f}x slower)")]
for label, seconds, slower in rows:
    print(f"  {label + ':':<32}{seconds * 1e3:9.2f} ms{slower}")
PY
echo "database, kernel pack and outputs: $work"
