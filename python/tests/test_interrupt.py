"""Ctrl-C: SIGINT to a Python process running tune_kernel stops the run, keeps what was
measured, records the run as interrupted and raises KeyboardInterrupt."""
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
import unittest

from support import Scratch

SCRIPT = textwrap.dedent("""
    import sys, numpy, tensortune
    kernel = '''
    __kernel void spin(__global float *c, int n) {
        int i = get_global_id(0);
        float x = 0.0f;
        for (int k = 0; k < n * work; k++) x = x * 0.999f + 1.0f;
        if (i < n) c[i] = x;
    }
    '''
    c = numpy.zeros(64, dtype=numpy.float32)
    try:
        tensortune.tune_kernel("spin", kernel, 64, [c, numpy.int32(64)],
                               {"block_size_x": [1, 2, 4, 8, 16, 32, 64], "work": list(range(1, 30))},
                               db=sys.argv[1], strategy="brute_force", batch_size=2, builders=1)
    except KeyboardInterrupt:
        print("KeyboardInterrupt", flush=True)
        sys.exit(130)
    print("finished", flush=True)
""")


def count_trials(db):
    if not os.path.exists(db):
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as c:
            return c.execute("SELECT count(*) FROM trials").fetchone()[0]
    except sqlite3.OperationalError:  # the schema is still being written
        return 0


class InterruptTest(unittest.TestCase):
    def test_sigint_keeps_trials_and_marks_the_run_interrupted(self):
        with Scratch() as d:
            db = os.path.join(d, "h.db")
            child = subprocess.Popen([sys.executable, "-c", SCRIPT, db], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
            deadline = time.time() + 300
            while count_trials(db) < 2 and child.poll() is None and time.time() < deadline:
                time.sleep(0.2)
            self.assertIsNone(child.poll(), "the run ended before it could be interrupted")
            child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=120)
            self.assertEqual(child.returncode, 130, out + err)
            self.assertIn("KeyboardInterrupt", out)
            kept = count_trials(db)
            self.assertGreaterEqual(kept, 2)
            self.assertLess(kept, 7 * 29)
            with sqlite3.connect(db) as c:
                self.assertEqual(c.execute("SELECT status FROM runs").fetchall(), [("interrupted",)])
                self.assertEqual(c.execute("SELECT count(*) FROM claims").fetchone()[0], 0)


if __name__ == "__main__":
    unittest.main()
