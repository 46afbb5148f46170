#!/usr/bin/env bash
# bench/history_pandas.sh [BUILD_DIR] [TRIALS]
#
# How long `tensortune.History(db).to_pandas()` takes for a history of TRIALS (default 10,000)
# trials: writes the history with the simulated device (`tensortune tune --device fake`, a
# random search over a large GEMM space), then times to_pandas() in three fresh Python
# processes (each first call: the module's and pandas's imports included, and then without
# them) and three times more within one process. Debian's /usr/bin/python3 with python3-pandas.
# Prints seconds per call, the frame's shape and the load average.
set -euo pipefail
build=${1:-build} trials=${2:-10000}
[[ -x "$build/bin/tensortune" && -d "$build/python/tensortune" ]] || {
  echo "usage: bench/history_pandas.sh [BUILD_DIR] [TRIALS] (BUILD_DIR holds bin/tensortune and python/)" >&2
  exit 2
}
work=$(mktemp -d "${TMPDIR:-/tmp}/tt-history-pandas.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$build/bin/tensortune" tune --device fake --op gemm --shape 1024,1024,1024 --tuner random --trials "$trials" \
  --batch-size 500 --db "$work/big.db" > /dev/null
echo "history: $("$build/bin/tensortune" sql --csv --db "$work/big.db" "SELECT count(*) FROM trials" | tail -1) trials"
export PYTHONPATH="$build/python"
for i in 1 2 3; do
  /usr/bin/python3 - "$work/big.db" << 'PY'
import sys, time
started = time.perf_counter()
import tensortune
frame = tensortune.History(sys.argv[1]).to_pandas()
first = time.perf_counter() - started
started = time.perf_counter()
tensortune.History(sys.argv[1]).to_pandas()
print(f"fresh process: first call {first:.3f} s (imports included), second {time.perf_counter() - started:.3f} s; "
      f"frame {frame.shape[0]} x {frame.shape[1]}")
PY
done
/usr/bin/python3 - "$work/big.db" << 'PY'
import sys, time
import tensortune
import pandas  # noqa: F401  (imported before the timing)
h = tensortune.History(sys.argv[1])
h.to_pandas()
times = []
for _ in range(3):
    started = time.perf_counter()
    h.to_pandas()
    times.append(time.perf_counter() - started)
print("warm calls: " + ", ".join(f"{t:.3f} s" for t in times))
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
