-- Migration 0009: what tune-network's first round gave each network task.

-- The first round gives every task its best guess rather than its template's untuned default:
-- the config of the most similar workload measured on the device, adapted, else the
-- device-class starting config. first_config: "template: config key"; first_source: where it
-- came from. unmeasured = 1: the run ended (a budget smaller than the task count) before any
-- config of the task was measured, so the task runs that transferred config, unmeasured.
ALTER TABLE network_tasks ADD COLUMN first_config TEXT;
ALTER TABLE network_tasks ADD COLUMN first_source TEXT;
ALTER TABLE network_tasks ADD COLUMN unmeasured INTEGER NOT NULL DEFAULT 0 CHECK (unmeasured IN (0, 1));
