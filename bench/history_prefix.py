#!/usr/bin/python3
"""What a tune-network run had after its first N trials, for bench/anytime.sh.

    bench/history_prefix.py FULL_DIR BUDGET OUT_DIR

FULL_DIR holds a finished run's history.db, tune.json and tuning_s.txt. OUT_DIR gets history.db
with only the first BUDGET trials of its last network run (in the order they were recorded;
what the database held before that run, e.g. other networks' history, stays), tune.json with the estimated network latency after the last round that ended
within them (the run's anytime curve) and the tasks without a measured config, and
tuning_s.txt: the wall clock until the BUDGET-th trial finished, plus the process start-up the
full run spent before its network run began. tune-network decides nothing from the budget
left, except that a budget smaller than the task count measures only the heaviest tasks, so
the first N trials of a longer run are what a run of N trials does (for N at least the task
count).
"""
import datetime
import json
import os
import sqlite3
import sys


def seconds(stamp):
    return datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[2])
    full_dir, budget, out_dir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    os.makedirs(out_dir, exist_ok=True)
    target = os.path.join(out_dir, "history.db")
    if os.path.exists(target):
        os.remove(target)
    source = sqlite3.connect(f"file:{os.path.join(full_dir, 'history.db')}?mode=ro", uri=True)
    db = sqlite3.connect(target)
    source.backup(db)
    source.close()
    run = db.execute("SELECT id, started_at, ended_at FROM network_runs ORDER BY id DESC LIMIT 1").fetchone()
    if run is None:
        sys.exit(f"history_prefix.py: {full_dir} holds no network run")
    run_id, run_start, run_end = run
    own = "SELECT t.id FROM trials t JOIN runs r ON r.id = t.run_id WHERE r.network_run_id = ? ORDER BY t.id"
    ids = [row[0] for row in db.execute(own, (run_id,))]
    if budget > len(ids):
        sys.exit(f"history_prefix.py: the run measured {len(ids)} trials, fewer than {budget}")
    last = ids[budget - 1]
    (finished,) = db.execute("SELECT max(finished_at) FROM trials WHERE id IN (%s)" % ",".join(
        str(i) for i in ids[:budget])).fetchone()
    db.execute("DELETE FROM trials WHERE id > ? AND run_id IN (SELECT id FROM runs WHERE network_run_id = ?)",
               (last, run_id))
    db.execute("DELETE FROM network_progress WHERE network_run_id = ? AND trials > ?", (run_id, budget))
    (latency,) = db.execute(
        "SELECT latency_s FROM network_progress WHERE network_run_id = ? ORDER BY trials DESC LIMIT 1",
        (run_id,)).fetchone() or (None,)
    (unmeasured,) = db.execute(
        "SELECT count(*) FROM network_tasks n WHERE n.network_run_id = ? AND NOT EXISTS "
        "(SELECT 1 FROM trials t WHERE t.workload_id = n.workload_id AND t.status = 'ok')", (run_id,)).fetchone()
    db.commit()
    db.execute("VACUUM")
    db.close()
    full_wall = float(open(os.path.join(full_dir, "tuning_s.txt")).read())
    start_up = max(0.0, full_wall - (seconds(run_end) - seconds(run_start)))
    with open(os.path.join(out_dir, "tuning_s.txt"), "w") as f:
        print(seconds(finished) - seconds(run_start) + start_up, file=f)
    full = json.load(open(os.path.join(full_dir, "tune.json")))
    prefix = {"network": full.get("network"), "trials_used": budget, "prefix_of": full.get("trials_used"),
              "latency_s": latency if latency is not None else float("nan"), "tasks_unmeasured": unmeasured,
              "anytime": [p for p in full.get("anytime", []) if p["trials"] <= budget]}
    with open(os.path.join(out_dir, "tune.json"), "w") as f:
        json.dump(prefix, f)


if __name__ == "__main__":
    main()
