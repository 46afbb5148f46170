#!/usr/bin/python3
"""What a tune-network run had after its first N trials, for bench/anytime.sh.

    bench/history_prefix.py FULL_DIR BUDGET OUT_DIR

FULL_DIR holds a finished run's history.db, tune.json and tuning_s.txt (one network run in a
fresh database). OUT_DIR gets history.db with only the first BUDGET trials (in the order they
were recorded), tune.json with the estimated network latency after the last round that ended
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
    runs = db.execute("SELECT id, started_at, ended_at FROM network_runs").fetchall()
    if len(runs) != 1:
        sys.exit(f"history_prefix.py: {full_dir} holds {len(runs)} network runs, not one")
    run_id, run_start, run_end = runs[0]
    ids = [row[0] for row in db.execute("SELECT id FROM trials ORDER BY id")]
    if budget > len(ids):
        sys.exit(f"history_prefix.py: the run measured {len(ids)} trials, fewer than {budget}")
    last = ids[budget - 1]
    (finished,) = db.execute("SELECT max(finished_at) FROM trials WHERE id <= ?", (last,)).fetchone()
    db.execute("DELETE FROM trials WHERE id > ?", (last,))
    db.execute("DELETE FROM network_progress WHERE trials > ?", (budget,))
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
