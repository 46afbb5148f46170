-- Migration 0007: which process measured each trial, for runs spread over many devices.

-- tensortune-mpi: "rank 2 on node7, device 1" (the MPI rank, its host and its --device); NULL
-- for a trial measured by the process that recorded it. The device itself is device_id: every
-- rank of a run measures on devices of one fingerprint.
ALTER TABLE trials ADD COLUMN measured_by TEXT;
