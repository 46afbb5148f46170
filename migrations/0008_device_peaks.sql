-- Migration 0008: what a device can do at best, so that a report shows how far each kernel is
-- from it (a fraction of the peak, a roofline).

-- One row per device whose peak is known: its single-precision compute peak (GFLOPS, as
-- bench/fma_peak.c measures it: chains of independent FMAs on every core) and its memory
-- bandwidth (GB/s); either may be NULL when unknown. Set by the user
-- (`tensortune report --peak-gflops ... --bandwidth-gbs ...`), replaced when set again.
CREATE TABLE device_peaks (
  device_id INTEGER PRIMARY KEY REFERENCES devices (id),
  peak_gflops REAL CHECK (peak_gflops IS NULL OR peak_gflops > 0),
  bandwidth_gbs REAL CHECK (bandwidth_gbs IS NULL OR bandwidth_gbs > 0),
  source TEXT NOT NULL,                       -- where the figures come from: 'user', a benchmark's name
  recorded_at TEXT NOT NULL
);
