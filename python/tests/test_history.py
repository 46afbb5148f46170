"""History(db): trials, best per task, SQL and pandas on a database written by tune_kernel."""
import os
import time
import unittest

import numpy

import tensortune
from support import VECTOR_ADD, Scratch


class HistoryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = Scratch()
        d = cls.scratch.__enter__()
        cls.db = os.path.join(d, "h.db")
        for size in (256, 512):
            a = numpy.ones(size, dtype=numpy.float32)
            args = [numpy.zeros_like(a), a, a, numpy.int32(size)]
            tensortune.tune_kernel("vector_add", VECTOR_ADD, size, args, {"block_size_x": [32, 64, 128]},
                                   answer=[a + a, None, None, None], db=cls.db, iterations=2)

    @classmethod
    def tearDownClass(cls):
        cls.scratch.__exit__(None, None, None)

    def test_trials_are_dicts_of_every_trial(self):
        h = tensortune.History(self.db)
        trials = h.trials()
        self.assertEqual(len(trials), 6)
        self.assertEqual({t["workload"] for t in trials}, {"kernel_tuner:p0=256", "kernel_tuner:p0=512"})
        self.assertEqual({t["template"] for t in trials}, {"vector_add"})
        self.assertEqual(len(h.trials(status="wrong_answer")), 2)  # block_size_x=64 at both sizes
        self.assertEqual(len(h.trials(workload="kernel_tuner:p0=256")), 3)
        self.assertEqual(h.trials(op="gemm"), [])

    def test_best_per_task_is_the_fastest_ok_trial(self):
        h = tensortune.History(self.db)
        best = h.best_per_task()
        self.assertEqual(len(best), 2)
        for b in best:
            fastest = h.sql("SELECT min(time_s) AS t FROM trials t JOIN workloads w ON w.id = t.workload_id "
                            f"WHERE t.status = 'ok' AND w.key = '{b['workload']}'")[0]["t"]
            self.assertEqual(b["time_s"], fastest)
            self.assertNotEqual(b["config_key"], "block_size_x=64")

    def test_sql_is_read_only(self):
        h = tensortune.History(self.db)
        self.assertEqual(h.sql("SELECT count(DISTINCT workload_id) AS n FROM trials"), [{"n": 2}])
        with self.assertRaises(ValueError):
            h.sql("DELETE FROM trials")
        self.assertEqual(len(h.trials()), 6)

    def test_export_and_import_round_trip(self):
        text = tensortune.export(self.db, format="json", workload="kernel_tuner:p0=256")
        self.assertEqual(text.count("vector_add"), 3)
        cache = os.path.join(self.scratch.path, "kt.json")
        results, env = tensortune.tune_kernel(
            "vector_add", VECTOR_ADD, 256, [numpy.zeros(256, numpy.float32), numpy.ones(256, numpy.float32),
                                            numpy.ones(256, numpy.float32), numpy.int32(256)],
            {"block_size_x": [32, 64, 128]}, db=self.db, iterations=2, cache=cache)
        self.assertEqual(env["measured"], 0)  # all recorded already
        other = os.path.join(self.scratch.path, "other.db")
        report = tensortune.import_history(cache, db=other)
        self.assertIn("vector_add", report)
        self.assertEqual(len(tensortune.History(other).trials()), 3)

    def test_missing_database(self):
        with self.assertRaises(FileNotFoundError):
            tensortune.History(os.path.join(self.scratch.path, "none.db"))

    def test_to_pandas(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed")
        frame = tensortune.History(self.db).to_pandas()
        self.assertEqual(len(frame), 6)
        self.assertIn("config_key", frame.columns)


if __name__ == "__main__":
    unittest.main()
