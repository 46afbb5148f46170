#!/usr/bin/env bash
# bench/trial_cost.sh OLD_BIN_DIR [NEW_BIN_DIR]
#
# Seconds per trial of two tensortune builds side by side (an older one in OLD_BIN_DIR, this
# checkout's in NEW_BIN_DIR, default build/bin), on the issue's yardstick: 512^3 GEMM, 50 random
# configurations,
#   tensortune tune --op gemm --shape 512,512,512 --tuner random --trials 50 --seed N --db <fresh>
# for every seed in SEEDS (1 2 3), old and new alternating, each with a fresh database and a fresh
# POCL kernel cache (POCL_CACHE_DIR). Prints a markdown table: the wall seconds per trial (median
# over seeds) and where they go, from each database: the OpenCL program builds (sum of
# compile_s), the timed launches (sum of times_json) and the rest (worker round trips, the
# untimed warm-up launch in which POCL generates the work-group code, reference checks, tuner,
# SQLite, process start). Timeouts are counted at the --timeout each cost (10 s unless EXTRA_ARGS
# set it), the warm-up launches at one median time per ok trial (a lower bound: on POCL the
# first launch also generates code). EXTRA_ARGS are appended to both commands (e.g.
# "--min-time 0.02").
#
# An older build: git worktree add ../old REV; cmake -S ../old -B ../old/build -G Ninja
# -DCMAKE_BUILD_TYPE=Release -DTENSORTUNE_TESTS=OFF; cmake --build ../old/build --target
# tensortune tensortune-worker; then bench/trial_cost.sh ../old/build/bin.
#
# Environment: SEEDS (1 2 3), TRIALS (50), SHAPE (512,512,512), EXTRA_ARGS, KEEP_DB=1 to keep the
# databases and logs. Nothing else should run meanwhile: the machine is measured.
set -euo pipefail
cd "$(dirname "$0")/.."

(($# >= 1)) || { echo "usage: bench/trial_cost.sh OLD_BIN_DIR [NEW_BIN_DIR]" >&2; exit 2; }
old_bin=$1
new_bin="${2:-build/bin}"
read -r -a seeds <<<"${SEEDS:-1 2 3}"
trials="${TRIALS:-50}"
shape="${SHAPE:-512,512,512}"
read -r -a extra <<<"${EXTRA_ARGS:-}"
for bin in "$old_bin" "$new_bin"; do
  for program in tensortune tensortune-worker; do
    [[ -x "$bin/$program" ]] || { echo "trial_cost.sh: $bin/$program is missing" >&2; exit 3; }
  done
done
command -v python3 >/dev/null || { echo "trial_cost.sh: python3 is needed" >&2; exit 3; }

work="$(mktemp -d "${TMPDIR:-/tmp}/tt-trial-cost.XXXXXX")"
if [[ "${KEEP_DB:-0}" == 1 ]]; then echo "keeping $work" >&2; else trap 'rm -rf "$work"' EXIT; fi
manifest="$work/manifest.tsv"
: >"$manifest"

for seed in "${seeds[@]}"; do
  for build in old new; do
    bin="$old_bin"
    [[ "$build" == new ]] && bin="$new_bin"
    base="$work/$build-$seed"
    mkdir -p "$base.pocl"
    cmd=("$bin/tensortune" tune --op gemm --shape "$shape" --tuner random --trials "$trials" --seed "$seed"
         --db "$base.db" "${extra[@]}")
    t0=$(date +%s.%N)
    rc=0
    POCL_CACHE_DIR="$base.pocl" "${cmd[@]}" >"$base.out" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    rm -rf "$base.pocl"
    if ((rc != 0)); then
      echo "[$build seed $seed] FAILED (exit $rc):" >&2
      tail -5 "$base.out" >&2
      continue
    fi
    wall=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$t0" "$t1")
    echo "[$build seed $seed] $(printf '%.1f' "$wall") s" >&2
    printf '%s\t%s\t%s\t%s\n' "$build" "$seed" "$base.db" "$wall" >>"$manifest"
  done
done

python3 - "$manifest" "$shape" "$trials" "$(nproc)" "${EXTRA_ARGS:-}" <<'EOF'
import json, sqlite3, statistics, sys

manifest, shape, trials, nproc, extra = sys.argv[1:6]
rows = [line.rstrip("\n").split("\t") for line in open(manifest) if line.strip()]
words = extra.split()
timeout_s = float(words[words.index("--timeout") + 1]) if "--timeout" in words else 10.0  # tune's default
by_build = {}
for build, seed, db, wall in rows:
    con = sqlite3.connect(db)
    n = con.execute("SELECT COUNT(*) FROM trials").fetchone()[0]
    compile_s = con.execute("SELECT TOTAL(compile_s) FROM trials").fetchone()[0]
    timed = sum(sum(json.loads(t)) for (t,) in con.execute("SELECT times_json FROM trials"))
    repeats = sum(len(json.loads(t)) for (t,) in con.execute("SELECT times_json FROM trials WHERE status = 'ok'"))
    ok = con.execute("SELECT COUNT(*) FROM trials WHERE status = 'ok'").fetchone()[0]
    best = con.execute("SELECT MAX(gflops) FROM trials").fetchone()[0] or 0
    timeouts = con.execute("SELECT COUNT(*) FROM trials WHERE status = 'timeout'").fetchone()[0]
    # The untimed warm-up launch runs the kernel once more: at least one median time per ok trial.
    warm = con.execute("SELECT TOTAL(time_s) FROM trials WHERE status = 'ok'").fetchone()[0]
    wall = float(wall)
    rest = wall - compile_s - timed - timeouts * timeout_s - warm
    by_build.setdefault(build, []).append({
        "seed": seed, "n": n, "ok": ok, "wall": wall / n, "compile": compile_s / n, "timed": timed / n,
        "timeouts": timeouts, "timeout": timeouts * timeout_s / n, "warm": warm / n, "rest": rest / n,
        "repeats": repeats / max(ok, 1), "best": best})

print(f"Seconds per trial, gemm {shape}, tuner random, {trials} trials, seeds "
      f"{' '.join(r['seed'] for r in next(iter(by_build.values())))}"
      f"{', extra arguments ' + extra if extra else ''} (nproc {nproc}; medians over seeds)\n")
columns = ["wall", "compile", "timed", "timeout", "warm", "rest"]
print("| build | trials (ok, timeouts) | wall s/trial | compile s/trial | timed s/trial | timeouts s/trial | "
      "warm-up launches s/trial (at least) | rest s/trial | timed repeats per ok trial | best GFLOPS |")
print("|---|---|---|---|---|---|---|---|---|---|")
for build, runs in by_build.items():
    m = lambda k: statistics.median(r[k] for r in runs)
    print(f"| {build} | {m('n'):g} ({m('ok'):g}, {m('timeouts'):g}) | " +
          " | ".join(f"{m(c):.3f}" for c in columns) + f" | {m('repeats'):.1f} | {m('best'):.1f} |")
    print("| per seed | | " + " | ".join(", ".join(f"{r[c]:.3f}" for r in runs) for c in columns) + " | | |")
if "old" in by_build and "new" in by_build:
    o = statistics.median(r["wall"] for r in by_build["old"])
    n = statistics.median(r["wall"] for r in by_build["new"])
    print(f"\nnew / old wall per trial: {n / o:.2f} ({o:.3f} -> {n:.3f} s)")
EOF
