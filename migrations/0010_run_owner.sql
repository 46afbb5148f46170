-- Migration 0010: which process runs a run, so that a run whose process died is not left
-- 'running' forever.

-- "host pid start-time" of the process tuning it (as network_runs.owner), set while it is
-- 'running'. The next process that opens the database for writing on that host marks a
-- 'running' run whose process is gone 'failed' (error: the process ended without ending it).
-- NULL in older rows and in rows imported or merged.
ALTER TABLE runs ADD COLUMN owner TEXT;
