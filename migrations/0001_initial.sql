-- Migration 0001: the initial schema. Applied in one transaction with PRAGMA user_version = 1.
-- Forward-only: never edit a migration that has shipped; add the next NNNN_name.sql instead,
-- and keep schema/schema.sql equal to the result (a test checks it).

-- "TTUN": lets tensortune tell its own databases from other SQLite files.
PRAGMA application_id = 1414813006;

CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,
  platform TEXT NOT NULL,
  name TEXT NOT NULL,
  driver_version TEXT NOT NULL,
  type TEXT NOT NULL,
  compute_units INTEGER NOT NULL,
  max_work_group_size INTEGER NOT NULL,
  local_mem_bytes INTEGER NOT NULL,
  global_mem_bytes INTEGER NOT NULL,
  first_seen TEXT NOT NULL
);

CREATE TABLE workloads (
  id INTEGER PRIMARY KEY,
  op TEXT NOT NULL,
  key TEXT NOT NULL UNIQUE,
  dims_json TEXT NOT NULL CHECK (json_valid(dims_json)),
  flops REAL NOT NULL CHECK (flops >= 0)
);

CREATE TABLE kernel_templates (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  op TEXT NOT NULL,
  source_hash TEXT NOT NULL,
  UNIQUE (name, source_hash)
);

CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  tuner TEXT NOT NULL,
  options_json TEXT NOT NULL CHECK (json_valid(options_json)),
  seed INTEGER NOT NULL,
  command TEXT NOT NULL,
  device_id INTEGER NOT NULL REFERENCES devices (id),
  workload_id INTEGER NOT NULL REFERENCES workloads (id),
  template_id INTEGER NOT NULL REFERENCES kernel_templates (id),
  trials_requested INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  status TEXT NOT NULL DEFAULT 'running'
    CHECK (status IN ('running', 'finished', 'interrupted', 'failed'))
);

CREATE TABLE trials (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id),
  workload_id INTEGER NOT NULL REFERENCES workloads (id),
  template_id INTEGER NOT NULL REFERENCES kernel_templates (id),
  device_id INTEGER NOT NULL REFERENCES devices (id),
  config_key TEXT NOT NULL,
  config_json TEXT NOT NULL CHECK (json_valid(config_json)),
  status TEXT NOT NULL CHECK (status IN ('ok', 'invalid_config', 'compile_error',
                                         'runtime_error', 'wrong_answer', 'timeout')),
  error TEXT,
  times_json TEXT NOT NULL CHECK (json_valid(times_json)),
  time_s REAL NOT NULL,
  gflops REAL NOT NULL,
  compile_s REAL NOT NULL,
  batch INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL
);

CREATE INDEX trials_by_task ON trials (workload_id, template_id, device_id, config_key);
CREATE INDEX trials_by_run ON trials (run_id);

CREATE VIEW trials_view AS
SELECT t.id, t.run_id, r.tuner, w.op, w.key AS workload, k.name AS template,
       d.name AS device, t.batch, t.config_key, t.status, t.time_s, t.gflops,
       t.compile_s, t.error, t.started_at, t.finished_at
FROM trials AS t
JOIN runs AS r ON r.id = t.run_id
JOIN workloads AS w ON w.id = t.workload_id
JOIN kernel_templates AS k ON k.id = t.template_id
JOIN devices AS d ON d.id = t.device_id;
