-- Migration 0006: indexes and view shapes that keep a history of millions of trials quick to
-- query and to merge, and the process that tunes a network run.

-- "host pid start-time" of the process tuning the network run while it is 'running': the same
-- command started again meanwhile is refused instead of sharing (and doubling) its budget.
ALTER TABLE network_runs ADD COLUMN owner TEXT;

-- The fastest ok trial of a task is the first entry of its range (best_per_task, Best, report).
CREATE INDEX trials_ok_by_time ON trials (workload_id, template_id, device_id, time_s)
  WHERE status = 'ok';

-- The runs of a task (merge finds a run already present, and the run it became, through it).
CREATE INDEX runs_by_task ON runs (workload_id, template_id, device_id, started_at);

-- The fastest ok trial of every task (workload x template x device): one probe per task.
DROP VIEW best_per_task;
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

-- Per workload, template, device and tuner: runs, trials, the best GFLOPS reached and the
-- fraction of trials that succeeded (a run without trials counts as one failed row, as before).
-- Each run is aggregated first, through trials_by_run, then the runs are grouped.
DROP VIEW tuner_comparison;
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
