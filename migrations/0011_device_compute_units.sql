-- Migration 0011: a device's fingerprint names its compute units.
--
-- POCL with one thread and with two, or a GPU and a partition of it, report the same name and
-- driver, but their fastest configs differ: each is now a device of its own. Rows of devices
-- seen here get their count appended, as DeviceInfo::Fingerprint writes it; imported devices,
-- whose count is unknown, keep theirs.
UPDATE devices SET fingerprint = fingerprint || ' | compute units: ' || compute_units
WHERE imported = 0 AND compute_units > 0;
