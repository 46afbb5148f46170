#!/usr/bin/env bash
# Writes a large synthetic history database with SQL inserts (no device, no measuring): the
# scale cases of tools/fault-suite.sh and docs/robustness.md.
#
#   bench/large_history.sh OUT.db [TRIALS] [WORKLOADS] [RUNS_PER_WORKLOAD]
#
# Defaults: 1000000 trials over 1000 GEMM workloads, 4 runs each (tuners random, ga, xgb, opevo),
# one template and one device; 1 trial in 10 failed (a compile error or a timeout, 1 in 100 of
# them transient), 12 repeat times per ok trial, plus one network run over the first 10
# workloads. OUT.db must not exist; it is created with this build's schema (tensortune sql --write).
set -euo pipefail
OUT=${1:?usage: bench/large_history.sh OUT.db [TRIALS] [WORKLOADS] [RUNS_PER_WORKLOAD]}
OUT=$(realpath -m "$OUT")
cd "$(dirname "$0")/.."
BIN=${TENSORTUNE:-build/bin/tensortune}
TRIALS=${2:-1000000} WORKLOADS=${3:-1000} RUNS=${4:-4}
[[ -e $OUT ]] && { echo "large_history: $OUT exists" >&2; exit 2; }
command -v sqlite3 > /dev/null || { echo "large_history: needs the sqlite3 shell" >&2; exit 2; }
"$BIN" sql --write --db "$OUT" "SELECT 1" > /dev/null
PER_RUN=$(( (TRIALS + WORKLOADS * RUNS - 1) / (WORKLOADS * RUNS) ))
sqlite3 "$OUT" << SQL
.output /dev/null
PRAGMA journal_mode = WAL;
PRAGMA synchronous = OFF;
BEGIN;
INSERT INTO devices (fingerprint, platform, name, driver_version, type, compute_units, max_work_group_size,
                     local_mem_bytes, global_mem_bytes, first_seen, imported)
VALUES ('synthetic | large-history device | 1 | compute units: 16', 'synthetic', 'large-history device', '1', 'cpu', 16, 4096,
        65536, 17179869184, '2026-01-01T00:00:00.000Z', 0);
INSERT INTO kernel_templates (name, op, source_hash, knob_schema) VALUES ('gemm_tiled', 'gemm', 'synthetic', 'synthetic');
WITH RECURSIVE w(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM w WHERE i + 1 < $WORKLOADS)
INSERT INTO workloads (op, key, dims_json, flops)
SELECT 'gemm', printf('gemm:m=%d,n=%d,k=%d', 64 + i, 128 + i % 7, 256), json_object('m', 64 + i, 'n', 128 + i % 7, 'k', 256),
       2.0 * (64 + i) * (128 + i % 7) * 256 FROM w;
WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i + 1 < $WORKLOADS * $RUNS)
INSERT INTO runs (tuner, options_json, seed, command, device_id, workload_id, template_id, trials_requested,
                  started_at, ended_at, status)
SELECT CASE i % 4 WHEN 0 THEN 'random' WHEN 1 THEN 'ga' WHEN 2 THEN 'xgb' ELSE 'opevo' END, '{}', i % $RUNS,
       'bench/large_history.sh', 1, 1 + i / $RUNS, 1, $PER_RUN,
       strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', printf('+%d seconds', i * 60)),
       strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', printf('+%d seconds', i * 60 + 59)), 'finished' FROM r;
WITH RECURSIVE t(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM t WHERE i + 1 < $TRIALS)
INSERT INTO trials (run_id, workload_id, template_id, device_id, config_key, config_json, status, error, times_json,
                    time_s, gflops, compile_s, batch, started_at, finished_at, transient)
SELECT run, 1 + (run - 1) / $RUNS, 1, 1, printf('tile_x=[%d,1,1,1];vec=%d', i / 8, i % 8),
       printf('[["tile_x","sp",[%d,1,1,1]],["vec","ot",%d]]', i / 8, i % 8),
       CASE WHEN i % 10 = 3 THEN 'compile_error' WHEN i % 10 = 7 THEN 'timeout' ELSE 'ok' END,
       CASE WHEN i % 10 IN (3, 7) THEN 'synthetic failure' END,
       CASE WHEN i % 10 IN (3, 7) THEN '[]' ELSE printf('[%g,%g,%g,%g,%g,%g,%g,%g,%g,%g,%g,%g]', s, s, s, s, s, s, s, s, s, s, s, s) END,
       CASE WHEN i % 10 IN (3, 7) THEN 0 ELSE s END,
       CASE WHEN i % 10 IN (3, 7) THEN 0 ELSE 2.0 * (64 + (run - 1) / $RUNS) * 128 * 256 / s * 1e-9 END,
       0.05, (i % $PER_RUN) / 8,
       strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', printf('+%d seconds', (run - 1) * 60)),
       strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', printf('+%d seconds', (run - 1) * 60 + 1)),
       CASE WHEN i % 1000 = 7 THEN 1 ELSE 0 END
FROM (SELECT i, 1 + i / $PER_RUN AS run, 1e-4 * (1 + ((i * 7919) % 1000) / 100.0) AS s FROM t
      WHERE 1 + i / $PER_RUN <= $WORKLOADS * $RUNS);
INSERT INTO network_runs (network, batch, device_id, scheduler, sketch_policy, tuner, seed, trials_requested,
                          resume_key, command, started_at, ended_at, status)
VALUES ('synthetic', 1, 1, 'ucb', 'ucb', 'random', 1, 1000, 'synthetic', 'bench/large_history.sh',
        '2026-01-01T00:00:00.000Z', '2026-01-01T01:00:00.000Z', 'finished');
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < min(10, $WORKLOADS))
INSERT INTO network_tasks (network_run_id, task_index, workload_id, weight, layers, default_time_s)
SELECT 1, i, 1 + i, 1 + i % 3, printf('layer%d', i), 1e-3 FROM n;
WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < 100)
INSERT INTO network_progress (network_run_id, trials, latency_s, recorded_at)
SELECT 1, i * 10, 1e-2 / (1 + i / 10.0), '2026-01-01T00:30:00.000Z' FROM p;
UPDATE runs SET network_run_id = 1 WHERE workload_id <= min(10, $WORKLOADS) AND seed = 0;
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
.output stdout
SQL
echo "$OUT: $(sqlite3 "$OUT" "SELECT count(*) FROM trials") trials, $(sqlite3 "$OUT" "SELECT count(*) FROM runs") runs, $(sqlite3 "$OUT" "SELECT count(*) FROM workloads") workloads, $(du -h "$OUT" | cut -f1)"
