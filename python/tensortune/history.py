"""History(db): the trials of a tensortune database as lists of dicts, SQL, and pandas;
import_history and export as `tensortune import` and `export`."""
import os

from tensortune import _engine

# One row per trial with what it measured and what it was measured for.
_TRIALS = """
SELECT t.id AS trial_id, t.run_id, w.op, w.key AS workload, k.name AS template, k.source_hash,
       d.name AS device, r.tuner, t.config_key, t.status, t.time_s, t.gflops, t.compile_s,
       t.times_json, t.started_at, t.finished_at
FROM trials t JOIN runs r ON r.id = t.run_id JOIN workloads w ON w.id = t.workload_id
JOIN kernel_templates k ON k.id = t.template_id JOIN devices d ON d.id = t.device_id
"""

# The fastest ok trial of each task (workload, template, device).
_BEST = """
SELECT w.op, w.key AS workload, k.name AS template, d.name AS device, t.config_key, min(t.time_s) AS time_s,
       t.gflops, t.run_id, count(*) AS ok_trials
FROM trials t JOIN workloads w ON w.id = t.workload_id JOIN kernel_templates k ON k.id = t.template_id
JOIN devices d ON d.id = t.device_id
WHERE t.status = 'ok'
GROUP BY t.workload_id, t.template_id, t.device_id
ORDER BY w.op, w.key, k.name, d.name
"""


class History:
    """A tensortune history database, read-only.

    >>> h = History("history.db")
    >>> h.best_per_task()[0]["config_key"]
    """

    def __init__(self, db="history.db"):
        if not os.path.exists(db):
            raise FileNotFoundError(f"no history database at {db}")
        self.db = os.fspath(db)

    def sql(self, query):
        """One read-only SQL statement; its rows as dicts (column name -> value)."""
        columns, rows = _engine._tensortune.sql(self.db, query)
        return [dict(zip(columns, row)) for row in rows]

    def _table(self, query):
        return _engine._tensortune.sql(self.db, query)

    def trials(self, op=None, workload=None, status=None):
        """Every trial, oldest first, optionally of one operator ("kernel_tuner" for your own
        kernels), one workload key or one status ("ok", "wrong_answer", ...)."""
        where, quote = [], lambda s: "'" + str(s).replace("'", "''") + "'"
        if op is not None:
            where.append(f"w.op = {quote(op)}")
        if workload is not None:
            where.append(f"w.key = {quote(workload)}")
        if status is not None:
            where.append(f"t.status = {quote(status)}")
        return self.sql(_TRIALS + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY t.id")

    def best_per_task(self):
        """The fastest ok trial of each workload, template and device."""
        return self.sql(_BEST)

    def to_pandas(self, query=None):
        """The trials (or a query's rows) as a pandas DataFrame; needs pandas."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("History.to_pandas needs pandas (Debian: python3-pandas)") from e
        columns, rows = self._table(query or _TRIALS + " ORDER BY t.id")
        return pandas.DataFrame.from_records(rows, columns=columns)


def import_history(files, db="history.db", skip_bad=False, device_name=None):
    """Imports AutoTVM logs, Kernel Tuner cache files or TopHub logs into `db`, as
    ``tensortune import`` (every file checked before anything is written; records already
    there are not added again). Returns the import's report."""
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    code, out, err = _engine._tensortune.import_history([os.fspath(f) for f in files], os.fspath(db),
                                                        bool(skip_bad), device_name or "")
    if code != 0:
        raise ValueError(err.strip() or f"import failed (exit {code})")
    return out


def export(db="history.db", out=None, format="json", op=None, workload=None, run=None, device=None):
    """Exports trials as ``tensortune export`` (formats autotvm, csv, json, t4): to the file
    `out`, or returned as text when `out` is None."""
    options = {"db": os.fspath(db), "format": format, "op": op or "", "workload": workload or "",
               "run": int(run or 0), "device": device or "", "out": os.fspath(out) if out else ""}
    code, text, err = _engine._tensortune.export_history(options)
    if code != 0:
        raise ValueError(err.strip() or f"export failed (exit {code})")
    return None if out else text
