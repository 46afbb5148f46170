-- Migration 0003: imported devices and the views for reading the history with plain SQL.

-- Devices imported from other tools' logs (an AutoTVM target, a Kernel Tuner GPU) are not
-- OpenCL devices seen here: their limits are unknown (NULL). SQLite cannot relax NOT NULL in
-- place, so the table is rebuilt; legacy_alter_table keeps the references of runs and trials
-- pointing at the name "devices" while the old table is renamed away.
PRAGMA legacy_alter_table = ON;
ALTER TABLE devices RENAME TO devices_0001;
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,
  platform TEXT NOT NULL,
  name TEXT NOT NULL,
  driver_version TEXT NOT NULL,
  type TEXT NOT NULL,
  compute_units INTEGER,
  max_work_group_size INTEGER,
  local_mem_bytes INTEGER,
  global_mem_bytes INTEGER,
  first_seen TEXT NOT NULL,
  imported INTEGER NOT NULL DEFAULT 0 CHECK (imported IN (0, 1)),
  CHECK (imported = 1 OR (compute_units IS NOT NULL AND max_work_group_size IS NOT NULL AND
                          local_mem_bytes IS NOT NULL AND global_mem_bytes IS NOT NULL))
);
INSERT INTO devices (id, fingerprint, platform, name, driver_version, type, compute_units,
                     max_work_group_size, local_mem_bytes, global_mem_bytes, first_seen)
SELECT id, fingerprint, platform, name, driver_version, type, compute_units,
       max_work_group_size, local_mem_bytes, global_mem_bytes, first_seen FROM devices_0001;
DROP TABLE devices_0001;
PRAGMA legacy_alter_table = OFF;

-- The knobs of user-defined kernels (Kernel Tuner spaces imported with their cache files),
-- which no built-in template describes: one row per such template.
CREATE TABLE user_spaces (
  template_id INTEGER PRIMARY KEY REFERENCES kernel_templates (id),
  space_json TEXT NOT NULL CHECK (json_valid(space_json))  -- {"knobs": [{"name", "kind", "values", "labels"}]}
);

-- The fastest ok trial of every task (workload x template x device).
CREATE VIEW best_per_task AS
SELECT w.op, w.key AS workload, k.name AS template, d.name AS device, d.imported,
       t.config_key, t.time_s, t.gflops, t.run_id, t.id AS trial_id
FROM trials AS t
JOIN workloads AS w ON w.id = t.workload_id
JOIN kernel_templates AS k ON k.id = t.template_id
JOIN devices AS d ON d.id = t.device_id
WHERE t.id = (SELECT b.id FROM trials AS b
              WHERE b.workload_id = t.workload_id AND b.template_id = t.template_id
                AND b.device_id = t.device_id AND b.status = 'ok' AND b.time_s > 0
              ORDER BY b.time_s, b.id LIMIT 1);

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
-- fraction of trials that succeeded.
CREATE VIEW tuner_comparison AS
SELECT w.key AS workload, k.name AS template, d.name AS device, r.tuner,
       count(DISTINCT r.id) AS runs, count(t.id) AS trials,
       max(t.gflops) AS best_gflops,
       avg(CASE WHEN t.status = 'ok' THEN 1.0 ELSE 0.0 END) AS ok_fraction
FROM runs AS r
JOIN workloads AS w ON w.id = r.workload_id
JOIN kernel_templates AS k ON k.id = r.template_id
JOIN devices AS d ON d.id = r.device_id
LEFT JOIN trials AS t ON t.run_id = r.id
GROUP BY w.key, k.name, d.name, r.tuner;
