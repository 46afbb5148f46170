-- Migration 0002: whole-network runs, claims that keep two processes from measuring one
-- config, transient failures that later runs may retry, and why a run failed.

-- A failure of the environment rather than of the config (the worker killed from outside,
-- a garbled reply, a timeout): such a trial does not stop a later run from measuring it.
ALTER TABLE trials ADD COLUMN transient INTEGER NOT NULL DEFAULT 0 CHECK (transient IN (0, 1));

-- Before this migration two processes tuning one task could measure a config twice; the
-- first record of each config stands, so that the index below can hold.
DELETE FROM trials WHERE id NOT IN (
  SELECT min(id) FROM trials GROUP BY workload_id, template_id, device_id, config_key);

CREATE UNIQUE INDEX trials_final_once ON trials (workload_id, template_id, device_id, config_key)
  WHERE transient = 0;

ALTER TABLE runs ADD COLUMN error TEXT;

CREATE TABLE network_runs (
  id INTEGER PRIMARY KEY,
  network TEXT NOT NULL,
  batch INTEGER NOT NULL CHECK (batch >= 1),
  device_id INTEGER NOT NULL REFERENCES devices (id),
  scheduler TEXT NOT NULL,
  sketch_policy TEXT NOT NULL,
  tuner TEXT NOT NULL,
  seed INTEGER NOT NULL,
  trials_requested INTEGER NOT NULL,
  resume_key TEXT NOT NULL,
  command TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  status TEXT NOT NULL DEFAULT 'running'
    CHECK (status IN ('running', 'finished', 'interrupted', 'failed')),
  error TEXT
);

ALTER TABLE runs ADD COLUMN network_run_id INTEGER REFERENCES network_runs (id);

CREATE TABLE network_tasks (
  network_run_id INTEGER NOT NULL REFERENCES network_runs (id),
  task_index INTEGER NOT NULL,
  workload_id INTEGER NOT NULL REFERENCES workloads (id),
  weight INTEGER NOT NULL CHECK (weight >= 1),
  layers TEXT NOT NULL,
  default_time_s REAL,
  PRIMARY KEY (network_run_id, task_index)
);

CREATE TABLE network_progress (
  network_run_id INTEGER NOT NULL REFERENCES network_runs (id),
  trials INTEGER NOT NULL,
  latency_s REAL NOT NULL,
  recorded_at TEXT NOT NULL,
  PRIMARY KEY (network_run_id, trials)
);

CREATE TABLE claims (
  workload_id INTEGER NOT NULL,
  template_id INTEGER NOT NULL,
  device_id INTEGER NOT NULL,
  config_key TEXT NOT NULL,
  run_id INTEGER NOT NULL REFERENCES runs (id),
  pid INTEGER NOT NULL,
  claimed_at TEXT NOT NULL,
  PRIMARY KEY (workload_id, template_id, device_id, config_key)
);

CREATE INDEX runs_by_network_run ON runs (network_run_id);
