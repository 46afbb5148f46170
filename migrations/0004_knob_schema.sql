-- Migration 0004: a template's knob schema beside its source hash, and the indexes that
-- warm starts read history through.
--
-- Editing a kernel's OpenCL source gives a new kernel_templates row (a new source hash): its
-- old trials are no measured bests for the new code. When the knobs (names, kinds, split
-- lengths) stay the same, those trials remain good starting points: knob_schema says so.
-- '' means not known yet (rows from before this migration); the next run fills it in.
ALTER TABLE kernel_templates ADD COLUMN knob_schema TEXT NOT NULL DEFAULT '';
CREATE INDEX kernel_templates_by_schema ON kernel_templates (name, knob_schema);

CREATE INDEX workloads_by_op ON workloads (op);

-- The fastest correct trials of one workload: warm-start candidates and fallbacks.
CREATE INDEX trials_ok_by_gflops ON trials (workload_id, template_id, device_id, gflops)
  WHERE status = 'ok';
