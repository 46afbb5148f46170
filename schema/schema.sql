-- tensortune history database: the current schema, for people to read.
--
-- The database is built by the files in migrations/ (applied in order, each in one
-- transaction that also sets PRAGMA user_version); a test checks that they give exactly
-- this schema. Times are ISO-8601 UTC text ("2024-05-01T12:34:56.789Z"), which SQLite's
-- date functions understand: julianday(finished_at) - julianday(started_at).
--
-- Example: the ten fastest configs of every GEMM ever tuned on this machine:
--   SELECT workload, template, device, config_key, gflops FROM trials_view
--   WHERE op = 'gemm' AND status = 'ok' ORDER BY gflops DESC LIMIT 10;

-- "TTUN": marks the file as a tensortune database. PRAGMA user_version is the number of
-- the last migration applied.
PRAGMA application_id = 1414813006;

-- One device: an OpenCL device seen here (the same hardware through the same driver, with the
-- same number of compute units), or one imported from another tool's records (an AutoTVM
-- target, a Kernel Tuner GPU), whose limits are unknown. Trials of an imported device are never
-- this machine's history. Rows are never updated (0011 appended the compute units once).
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,           -- platform | name | driver_version | compute units: N (0011)
  platform TEXT NOT NULL,                     -- CL_PLATFORM_NAME; 'AutoTVM', 'Kernel Tuner' when imported
  name TEXT NOT NULL,                         -- CL_DEVICE_NAME; the AutoTVM target when imported
  driver_version TEXT NOT NULL,               -- CL_DRIVER_VERSION
  type TEXT NOT NULL,                         -- 'cpu', 'gpu', 'accelerator' or 'other'
  compute_units INTEGER,                      -- the limits: NULL only when imported
  max_work_group_size INTEGER,
  local_mem_bytes INTEGER,
  global_mem_bytes INTEGER,
  first_seen TEXT NOT NULL,                   -- when a run first used (or an import added) it
  imported INTEGER NOT NULL DEFAULT 0 CHECK (imported IN (0, 1)),
  CHECK (imported = 1 OR (compute_units IS NOT NULL AND max_work_group_size IS NOT NULL AND
                          local_mem_bytes IS NOT NULL AND global_mem_bytes IS NOT NULL))
);

-- One operator instance (operator + named dimensions).
CREATE TABLE workloads (
  id INTEGER PRIMARY KEY,
  op TEXT NOT NULL,                           -- 'gemm', 'conv2d_nchw', ...
  key TEXT NOT NULL UNIQUE,                   -- canonical: 'gemm:m=512,n=1024,k=1024'
  dims_json TEXT NOT NULL CHECK (json_valid(dims_json)),  -- {"m":512,"n":1024,"k":1024}, in key order
  flops REAL NOT NULL CHECK (flops >= 0)      -- floating-point operations of one execution
);
CREATE INDEX workloads_by_op ON workloads (op);

-- One version of one kernel template: editing the OpenCL source gives a new row, so that
-- old measurements are never mistaken for the new code.
CREATE TABLE kernel_templates (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,                         -- 'gemm_tiled'
  op TEXT NOT NULL,                           -- the operator it implements
  source_hash TEXT NOT NULL,                  -- hash of the OpenCL source
  knob_schema TEXT NOT NULL DEFAULT '',       -- hash of the knob names and kinds; '' unknown
  UNIQUE (name, source_hash)
);
-- Versions of a template with the same knobs: their trials are warm-start candidates.
CREATE INDEX kernel_templates_by_schema ON kernel_templates (name, knob_schema);

-- One invocation of a tuner on one task (workload x template x device).
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  tuner TEXT NOT NULL,                        -- 'random', 'ga', 'opevo', ...
  options_json TEXT NOT NULL CHECK (json_valid(options_json)),  -- tuner options as given
  seed INTEGER NOT NULL,                      -- the 64 bits of the seed; >= 2^63 reads negative
  command TEXT NOT NULL,                      -- the command line that started the run
  device_id INTEGER NOT NULL REFERENCES devices (id),
  workload_id INTEGER NOT NULL REFERENCES workloads (id),
  template_id INTEGER NOT NULL REFERENCES kernel_templates (id),
  trials_requested INTEGER NOT NULL,          -- the trial budget asked for
  started_at TEXT NOT NULL,
  ended_at TEXT,                              -- NULL while running
  -- A killed run stays 'running' until a process on its host opens the database for writing:
  -- one whose owner has ended is then marked 'failed', its error naming the process.
  status TEXT NOT NULL DEFAULT 'running'
    CHECK (status IN ('running', 'finished', 'interrupted', 'failed')),
  error TEXT,                                 -- why a 'failed' run failed
  network_run_id INTEGER REFERENCES network_runs (id),  -- the network run it is part of, if any
  owner TEXT                                  -- 'host pid start-time' of the process tuning it (0010)
);

-- One measured configuration. Each batch of a run is written in one transaction, so a run
-- killed at any moment keeps every batch but the one in flight.
CREATE TABLE trials (
  id INTEGER PRIMARY KEY,                     -- increasing: ORDER BY id is recording order
  run_id INTEGER NOT NULL REFERENCES runs (id),
  workload_id INTEGER NOT NULL REFERENCES workloads (id),
  template_id INTEGER NOT NULL REFERENCES kernel_templates (id),
  device_id INTEGER NOT NULL REFERENCES devices (id),
  config_key TEXT NOT NULL,                   -- canonical: 'tile_x=[1,4,8,16];vec=4'
  config_json TEXT NOT NULL CHECK (json_valid(config_json)),  -- AutoTVM-style entity list
  status TEXT NOT NULL CHECK (status IN ('ok', 'invalid_config', 'compile_error',
                                         'runtime_error', 'wrong_answer', 'timeout')),
  error TEXT,                                 -- compiler log or failure text; NULL when ok
  times_json TEXT NOT NULL CHECK (json_valid(times_json)),  -- every timed repeat in seconds
  time_s REAL NOT NULL,                       -- median of times_json; 0 unless ok
  gflops REAL NOT NULL,                       -- flops / time_s / 1e9; 0 unless ok
  compile_s REAL NOT NULL,                    -- OpenCL program build time
  batch INTEGER NOT NULL,                     -- batch number within the run
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  -- 1: a failure of the environment, not of the config (the worker killed from outside, a
  -- garbled reply, a timeout). Later runs measure such a config again; a config that timed
  -- out twice counts as hanging.
  transient INTEGER NOT NULL DEFAULT 0 CHECK (transient IN (0, 1)),
  -- Where the trial's wall clock went (seconds; 0 in rows from before migration 0005): the
  -- first launch (POCL generates code here), the check against the CPU reference, the timed
  -- repeats, and its share of the measurer's wall clock (its share of a batch's parallel
  -- build phase plus its own timing). Builds run in parallel, so phases may sum past wall_s.
  first_launch_s REAL NOT NULL DEFAULT 0,
  verify_s REAL NOT NULL DEFAULT 0,
  timed_s REAL NOT NULL DEFAULT 0,
  wall_s REAL NOT NULL DEFAULT 0,
  -- tensortune-mpi: which rank measured it, "rank 2 on node7, device 1" (MPI rank, host,
  -- --device); NULL when the recording process measured it. Migration 0007.
  measured_by TEXT
);

-- Warm start and "never measure the same config twice" look trials up by task and config.
CREATE INDEX trials_by_task ON trials (workload_id, template_id, device_id, config_key);
CREATE INDEX trials_by_run ON trials (run_id);
-- A config has at most one final (non-transient) result per task, whatever process wrote it.
CREATE UNIQUE INDEX trials_final_once ON trials (workload_id, template_id, device_id, config_key)
  WHERE transient = 0;

-- Configs being measured right now. A run claims a batch's configs in a short transaction
-- before measuring them and drops the claims when it records them, so two processes on one
-- task never measure a config twice. Claims of a process that no longer exists are void.
CREATE TABLE claims (
  workload_id INTEGER NOT NULL,
  template_id INTEGER NOT NULL,
  device_id INTEGER NOT NULL,
  config_key TEXT NOT NULL,
  run_id INTEGER NOT NULL REFERENCES runs (id),
  pid INTEGER NOT NULL,                       -- the claiming process (on this machine)
  claimed_at TEXT NOT NULL,
  PRIMARY KEY (workload_id, template_id, device_id, config_key)
);

-- One `tune-network` invocation: one trial budget shared by the tasks of a network. Each
-- task x sketch gets its own row in runs, linked by runs.network_run_id.
CREATE TABLE network_runs (
  id INTEGER PRIMARY KEY,
  network TEXT NOT NULL,                      -- 'resnet18', or the name in a user's file
  batch INTEGER NOT NULL CHECK (batch >= 1),
  device_id INTEGER NOT NULL REFERENCES devices (id),
  scheduler TEXT NOT NULL,                    -- 'ucb', 'gradient' or 'round-robin'
  sketch_policy TEXT NOT NULL,                -- 'ucb' or 'uniform'
  tuner TEXT NOT NULL,
  seed INTEGER NOT NULL,
  trials_requested INTEGER NOT NULL,          -- the global trial budget
  resume_key TEXT NOT NULL,                   -- the same command again continues this run
  command TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  status TEXT NOT NULL DEFAULT 'running'
    CHECK (status IN ('running', 'finished', 'interrupted', 'failed')),
  error TEXT,
  owner TEXT                                  -- 'host pid start-time' of the process tuning it
);

-- The distinct workloads of a network run, with how often they occur in the network.
CREATE TABLE network_tasks (
  network_run_id INTEGER NOT NULL REFERENCES network_runs (id),
  task_index INTEGER NOT NULL,
  workload_id INTEGER NOT NULL REFERENCES workloads (id),
  weight INTEGER NOT NULL CHECK (weight >= 1),  -- occurrences in the network
  layers TEXT NOT NULL,                       -- the layer names it stands for
  default_time_s REAL,                        -- the untuned default config's time, once measured
  sketch TEXT,                                -- the sketch it settled on (its fastest), once known
  sketch_reason TEXT,                         -- why: the others' results, the priors that kept some untried
  first_config TEXT,                          -- the first round's config, "template: config key"
  first_source TEXT,                          -- where it came from: a similar workload, the device class
  unmeasured INTEGER NOT NULL DEFAULT 0 CHECK (unmeasured IN (0, 1)),  -- 1: runs first_config, never measured
  PRIMARY KEY (network_run_id, task_index)
);

-- The estimated network latency (sum of weight x best time per task) after each round.
CREATE TABLE network_progress (
  network_run_id INTEGER NOT NULL REFERENCES network_runs (id),
  trials INTEGER NOT NULL,                    -- trials of the network run so far
  latency_s REAL NOT NULL,
  recorded_at TEXT NOT NULL,
  PRIMARY KEY (network_run_id, trials)
);
CREATE INDEX runs_by_network_run ON runs (network_run_id);
-- The fastest correct trials of one workload: warm-start candidates and fallbacks.
CREATE INDEX trials_ok_by_gflops ON trials (workload_id, template_id, device_id, gflops)
  WHERE status = 'ok';
-- The fastest ok trial of a task is the first entry of its range.
CREATE INDEX trials_ok_by_time ON trials (workload_id, template_id, device_id, time_s)
  WHERE status = 'ok';
-- The runs of a task (merge looks runs up through it).
CREATE INDEX runs_by_task ON runs (workload_id, template_id, device_id, started_at);

-- What a device can do at best (migration 0008), for the fraction of peak and the roofline of
-- `tensortune report`: its single-precision compute peak (GFLOPS, as bench/fma_peak.c measures
-- it) and its memory bandwidth (GB/s), either NULL when unknown. Set by the user, replaced when
-- set again.
CREATE TABLE device_peaks (
  device_id INTEGER PRIMARY KEY REFERENCES devices (id),
  peak_gflops REAL CHECK (peak_gflops IS NULL OR peak_gflops > 0),
  bandwidth_gbs REAL CHECK (bandwidth_gbs IS NULL OR bandwidth_gbs > 0),
  source TEXT NOT NULL,                       -- where the figures come from: 'user', a benchmark's name
  recorded_at TEXT NOT NULL
);

-- Trials with names instead of ids, for plain SQL.
CREATE VIEW trials_view AS
SELECT t.id, t.run_id, r.tuner, w.op, w.key AS workload, k.name AS template,
       d.name AS device, t.batch, t.config_key, t.status, t.time_s, t.gflops,
       t.compile_s, t.error, t.started_at, t.finished_at
FROM trials AS t
JOIN runs AS r ON r.id = t.run_id
JOIN workloads AS w ON w.id = t.workload_id
JOIN kernel_templates AS k ON k.id = t.template_id
JOIN devices AS d ON d.id = t.device_id;

-- The knobs of user-defined kernels (Kernel Tuner spaces imported with their cache files),
-- which no built-in template describes: one row per such template.
CREATE TABLE user_spaces (
  template_id INTEGER PRIMARY KEY REFERENCES kernel_templates (id),
  space_json TEXT NOT NULL CHECK (json_valid(space_json))  -- {"knobs": [{"name", "kind", "values", "labels"}]}
);

-- The fastest ok trial of every task (workload x template x device): one probe per task.
CREATE VIEW best_per_task AS
SELECT w.op, w.key AS workload, k.name AS template, d.name AS device, d.imported,
       t.config_key, t.time_s, t.gflops, t.run_id, t.id AS trial_id
FROM (SELECT DISTINCT workload_id, template_id, device_id FROM trials WHERE status = 'ok') AS task
JOIN trials AS t ON t.id = (SELECT b.id FROM trials AS b
                            WHERE b.workload_id = task.workload_id AND b.template_id = task.template_id
                              AND b.device_id = task.device_id AND b.status = 'ok' AND b.time_s > 0
                            ORDER BY b.time_s, b.id LIMIT 1)
JOIN workloads AS w ON w.id = t.workload_id
JOIN kernel_templates AS k ON k.id = t.template_id
JOIN devices AS d ON d.id = t.device_id;

-- Every run with its tuner, budget and outcome.
CREATE VIEW runs_view AS
SELECT r.id AS run_id, r.tuner, r.seed, w.op, w.key AS workload, k.name AS template,
       d.name AS device, d.imported, r.trials_requested, r.status, r.started_at, r.ended_at,
       count(t.id) AS trials, sum(t.status = 'ok') AS ok_trials, max(t.gflops) AS best_gflops,
       min(CASE WHEN t.status = 'ok' AND t.time_s > 0 THEN t.time_s END) AS best_time_s
FROM runs AS r
JOIN workloads AS w ON w.id = r.workload_id
JOIN kernel_templates AS k ON k.id = r.template_id
JOIN devices AS d ON d.id = r.device_id
LEFT JOIN trials AS t ON t.run_id = r.id
GROUP BY r.id;

-- Best GFLOPS so far after each trial of each run, trial 1 first (failed trials count 0).
CREATE VIEW convergence AS
SELECT t.run_id, r.tuner,
       row_number() OVER (PARTITION BY t.run_id ORDER BY t.id) AS trial,
       t.gflops,
       max(t.gflops) OVER (PARTITION BY t.run_id ORDER BY t.id
                           ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS best_gflops
FROM trials AS t
JOIN runs AS r ON r.id = t.run_id;

-- Per workload, template, device and tuner: runs, trials, the best GFLOPS reached and the
-- fraction of trials that succeeded (a run without trials counts as one failed row, as before).
-- Each run is aggregated first, through trials_by_run, then the runs are grouped.
CREATE VIEW tuner_comparison AS
SELECT w.key AS workload, k.name AS template, d.name AS device, r.tuner,
       count(*) AS runs, sum(r.trials) AS trials, max(r.best_gflops) AS best_gflops,
       sum(r.ok) * 1.0 / sum(max(r.trials, 1)) AS ok_fraction
FROM (SELECT r.id, r.tuner, r.workload_id, r.template_id, r.device_id, count(t.id) AS trials,
             coalesce(sum(t.status = 'ok'), 0) AS ok, max(t.gflops) AS best_gflops
      FROM runs AS r LEFT JOIN trials AS t ON t.run_id = r.id GROUP BY r.id) AS r
JOIN workloads AS w ON w.id = r.workload_id
JOIN kernel_templates AS k ON k.id = r.template_id
JOIN devices AS d ON d.id = r.device_id
GROUP BY w.key, k.name, d.name, r.tuner;

-- Per run: its wall clock (start to end, or to its last trial while unfinished), the seconds
-- its trials spent measuring (measure_wall_s) and in each phase, and what timeouts cost.
-- run_wall_s - measure_wall_s is the rest: the tuner, the database, starting workers and
-- preparing each workload's inputs and CPU reference.
CREATE VIEW time_split AS
SELECT r.id AS run_id, r.network_run_id, r.tuner, w.key AS workload, k.name AS template,
       count(t.id) AS trials,
       (julianday(coalesce(r.ended_at, max(t.finished_at), r.started_at)) - julianday(r.started_at)) * 86400
         AS run_wall_s,
       coalesce(sum(t.wall_s), 0) AS measure_wall_s,
       coalesce(sum(t.compile_s), 0) AS build_s,
       coalesce(sum(t.first_launch_s), 0) AS first_launch_s,
       coalesce(sum(t.verify_s), 0) AS verify_s,
       coalesce(sum(t.timed_s), 0) AS timed_s,
       coalesce(sum(t.status = 'timeout'), 0) AS timeouts,
       coalesce(sum(CASE WHEN t.status = 'timeout' THEN t.wall_s ELSE 0 END), 0) AS timeout_wall_s
FROM runs AS r
JOIN workloads AS w ON w.id = r.workload_id
JOIN kernel_templates AS k ON k.id = r.template_id
LEFT JOIN trials AS t ON t.run_id = r.id
GROUP BY r.id;

-- The same per network run, over all its tasks' runs; run_wall_s is the network run's own.
CREATE VIEW network_time_split AS
SELECT n.id AS network_run_id, n.network, n.status,
       (julianday(coalesce(n.ended_at, max(s.run_end), n.started_at)) - julianday(n.started_at)) * 86400
         AS run_wall_s,
       coalesce(sum(s.trials), 0) AS trials,
       coalesce(sum(s.measure_wall_s), 0) AS measure_wall_s,
       coalesce(sum(s.build_s), 0) AS build_s,
       coalesce(sum(s.first_launch_s), 0) AS first_launch_s,
       coalesce(sum(s.verify_s), 0) AS verify_s,
       coalesce(sum(s.timed_s), 0) AS timed_s,
       coalesce(sum(s.timeouts), 0) AS timeouts,
       coalesce(sum(s.timeout_wall_s), 0) AS timeout_wall_s
FROM network_runs AS n
LEFT JOIN (SELECT ts.*, coalesce(r.ended_at, r.started_at) AS run_end
           FROM time_split AS ts JOIN runs AS r ON r.id = ts.run_id) AS s
  ON s.network_run_id = n.id
GROUP BY n.id;
