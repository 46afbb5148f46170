-- Migration 0005: where each trial's wall clock went, views that sum it per run, and the
-- sketch each network task settled on.
--
-- compile_s (the build) was the only cost recorded. A trial now also keeps its first launch
-- (where POCL generates code for the work-group size), the check against the CPU reference,
-- the timed repeats, and its share of the measurer's wall clock (its share of a batch's
-- parallel build phase plus its own timing): builds run in parallel processes, so the
-- per-phase seconds may add up to more than wall_s. Rows from before this migration read 0.
ALTER TABLE trials ADD COLUMN first_launch_s REAL NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN verify_s REAL NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN timed_s REAL NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN wall_s REAL NOT NULL DEFAULT 0;

-- Which sketch each task of a network run settled on, and why (the others' results, the
-- priors that kept sketches from being tried); written when the run ends or stops.
ALTER TABLE network_tasks ADD COLUMN sketch TEXT;
ALTER TABLE network_tasks ADD COLUMN sketch_reason TEXT;

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
