"""tune_kernel on the default OpenCL device (POCL in CI) with a small space."""
import json
import os
import subprocess
import sys
import unittest

import numpy

import tensortune
from tensortune import file_utils
from support import VECTOR_ADD, Scratch


def vector_add_args(size=1000):
    a = numpy.arange(size, dtype=numpy.float32)
    b = numpy.full(size, 2.0, dtype=numpy.float32)
    c = numpy.zeros_like(a)
    return [c, a, b, numpy.int32(size)], [a + b, None, None, None]


class TuneKernelTest(unittest.TestCase):
    def test_results_have_kernel_tuners_shape_and_wrong_configs_are_left_out(self):
        with Scratch() as d:
            db = os.path.join(d, "h.db")
            args, answer = vector_add_args()
            params = {"block_size_x": [32, 64, 128, 256]}
            results, env = tensortune.tune_kernel("vector_add", VECTOR_ADD, 1000, args, params, answer=answer,
                                                  db=db, cache=os.path.join(d, "cache"))
            self.assertEqual(sorted(r["block_size_x"] for r in results), [32, 128, 256])  # 64 is wrong
            for r in results:
                self.assertEqual(len(r["times"]), 7)  # iterations
                self.assertAlmostEqual(r["time"], sum(r["times"]) / 7)
                self.assertGreater(r["time"], 0)
            self.assertEqual(env["measured"], 4)
            self.assertEqual(env["workload"], "kernel_tuner:p0=1000")
            self.assertTrue(env["device_name"])
            # Kernel Tuner's cache file: every recorded config, the wrong one as a failure.
            cache = file_utils.read_cache(os.path.join(d, "cache.json"))
            self.assertEqual(cache["tune_params_keys"], ["block_size_x"])
            self.assertEqual(sorted(cache["cache"]), ["128", "256", "32", "64"])
            self.assertEqual(cache["cache"]["64"]["time"], "RuntimeFailedConfig")
            self.assertGreater(cache["cache"]["32"]["time"], 0)
            # An entry the history does not hold (Kernel Tuner's own, say) is kept by later runs.
            cache["cache"]["512"] = {"block_size_x": 512, "time": 1.5}
            with open(os.path.join(d, "cache.json"), "w") as f:
                json.dump(cache, f)

            # Again: resumes, measures nothing, returns the same configs from the history.
            again, env2 = tensortune.tune_kernel("vector_add", VECTOR_ADD, 1000, args, params, answer=answer, db=db)
            self.assertEqual(env2["measured"], 0)
            self.assertEqual(sorted(r["block_size_x"] for r in again), [32, 128, 256])
            self.assertEqual(env2["template_hash"], env["template_hash"])
            again, env3 = tensortune.tune_kernel("vector_add", VECTOR_ADD, 1000, args, params, answer=answer, db=db,
                                                 cache=os.path.join(d, "cache.json"))
            cache = file_utils.read_cache(os.path.join(d, "cache.json"))
            self.assertEqual(sorted(cache["cache"]), ["128", "256", "32", "512", "64"])

    def test_restrictions_strings_and_functions_strategy_and_budget(self):
        with Scratch() as d:
            db = os.path.join(d, "h.db")
            args, answer = vector_add_args(500)
            params = {"block_size_x": [16, 32, 128, 256], "unroll": [1, 2, 3]}
            results, env = tensortune.tune_kernel(
                "vector_add", VECTOR_ADD, 500, args, params, answer=answer, db=db,
                restrictions=["block_size_x >= 32", lambda p: p["unroll"] != 3], strategy="random_sample",
                strategy_options={"max_fevals": 4}, iterations=3)
            self.assertEqual(env["valid_configs"], 6)
            self.assertEqual(env["measured"], 4)
            self.assertEqual(env["tuner"], "random")
            for r in results:
                self.assertGreaterEqual(r["block_size_x"], 32)
                self.assertNotEqual(r["unroll"], 3)
                self.assertEqual(len(r["times"]), 3)

    def test_other_problem_sizes_warm_start_the_auto_tuner(self):
        with Scratch() as d:
            db = os.path.join(d, "h.db")
            params = {"block_size_x": [32, 128, 256, 512]}
            for size, fevals in ((1000, 4), (3000, 2)):
                args, answer = vector_add_args(size)
                results, env = tensortune.tune_kernel("vector_add", VECTOR_ADD, size, args, params, answer=answer,
                                                      db=db, strategy="auto", strategy_options={"max_fevals": fevals})
            self.assertEqual(env["measured"], 2)
            self.assertIn("kernel_tuner:p0=1000", env["warm_start"])  # the nearest recorded problem size

    def test_run_kernel_returns_the_arguments_afterwards(self):
        args, answer = vector_add_args(300)
        out = tensortune.run_kernel("vector_add", VECTOR_ADD, 300, args, {"block_size_x": 128})
        self.assertEqual(len(out), 4)
        numpy.testing.assert_array_equal(out[0], answer[0])
        self.assertEqual(out[0].dtype, numpy.float32)
        numpy.testing.assert_array_equal(out[1], args[1])
        self.assertEqual(out[3], args[3])
        wrong = tensortune.run_kernel("vector_add", VECTOR_ADD, 300, args, {"block_size_x": 64})
        numpy.testing.assert_array_equal(wrong[0], args[1] - args[2])
        with self.assertRaisesRegex(ValueError, "does not compile"):
            tensortune.run_kernel("vector_add", VECTOR_ADD + " syntax error", 300, args, {"block_size_x": 128})

    def test_bad_input_is_a_value_error_and_writes_nothing(self):
        with Scratch() as d:
            db = os.path.join(d, "h.db")
            args, _ = vector_add_args()
            with self.assertRaisesRegex(ValueError, "not a tunable parameter"):
                tensortune.tune_kernel("vector_add", VECTOR_ADD, 1000, args, {"block_size_x": [32]},
                                       restrictions=["bsx > 1"], db=db)
            with self.assertRaises(TypeError):
                tensortune.tune_kernel("vector_add", VECTOR_ADD, 1000, [[1, 2]], {"block_size_x": [32]}, db=db)
            self.assertFalse(os.path.exists(db))

    def test_a_crashing_kernel_costs_one_trial(self):
        crashing = VECTOR_ADD.replace("c[i] = a[i] + b[i];",
                                      "if (block_size_x == 128) { ((__global float*)0)[i * 4096] = 1.0f; }"
                                      " c[i] = a[i] + b[i];")
        with Scratch() as d:
            db = os.path.join(d, "h.db")
            args, answer = vector_add_args()
            results, env = tensortune.tune_kernel("vector_add", crashing, 1000, args,
                                                  {"block_size_x": [32, 128, 256]}, answer=answer, db=db)
            self.assertEqual(sorted(r["block_size_x"] for r in results), [32, 256])
            statuses = tensortune.History(db).sql("SELECT config_key, status FROM trials ORDER BY config_key")
            self.assertEqual({s["config_key"]: s["status"] for s in statuses}["block_size_x=128"], "runtime_error")

    def test_a_hanging_kernel_costs_one_trial(self):
        hanging = """
        __kernel void fill(__global float *c, int n) {
            volatile __global float *v = c;
            if (block_size_x == 32) { while (v[n] == 0.0f) { } }   /* c[n] stays 0: hangs */
            int i = get_global_id(0);
            if (i < n) c[i] = 1.0f;
        }"""
        with Scratch() as d:
            db = os.path.join(d, "h.db")
            c = numpy.zeros(257, dtype=numpy.float32)
            answer = numpy.ones(257, dtype=numpy.float32)
            answer[256] = 0
            results, env = tensortune.tune_kernel("fill", hanging, 256, [c, numpy.int32(256)],
                                                  {"block_size_x": [16, 32, 64]}, answer=[answer, None],
                                                  db=db, timeout=10)
            self.assertEqual(sorted(r["block_size_x"] for r in results), [16, 64])
            self.assertEqual(env["measured"], 3)
            status = tensortune.History(db).sql("SELECT status FROM trials WHERE config_key = 'block_size_x=32'")
            self.assertEqual(status, [{"status": "timeout"}])


class TuneOperatorTest(unittest.TestCase):
    def test_tune_records_an_operators_trials(self):
        with Scratch() as d:
            db = os.path.join(d, "h.db")
            summary = tensortune.tune("gemm", (48, 40, 24), tuner="random", trials=4, batch_size=2, min_time=0.01,
                                      db=db)
            self.assertEqual(summary["trials"], 4)
            self.assertEqual(summary["workload"], "gemm:m=48,n=40,k=24")
            self.assertEqual(len(tensortune.History(db).trials(op="gemm")), 4)
            best = tensortune.best("gemm", (48, 40, 24), db=db)
            self.assertEqual(best["config_key"], summary["best"]["config_key"])
            conv = {"n": 1, "ci": 8, "h": 8, "w": 8, "co": 8, "kh": 3, "kw": 3, "stride": 1, "pad": 1}
            self.assertIsNone(tensortune.best("conv2d", conv, db=db))  # nothing recorded for conv2d
            with self.assertRaisesRegex(ValueError, "unknown operator"):
                tensortune.tune("nope", (1,), db=db)

    def test_tune_network_spends_one_budget_over_the_layers(self):
        with Scratch() as d:
            network = os.path.join(d, "tiny.json")
            with open(network, "w") as f:
                json.dump({"name": "tiny", "layers": [{"name": "fc1", "op": "gemm", "shape": "16,32,16"},
                                                      {"name": "fc2", "op": "gemm", "shape": "16,16,32"}]}, f)
            db = os.path.join(d, "h.db")
            summary = tensortune.tune_network(network, trials=6, device="fake", db=db)
            self.assertEqual(summary["trials_used"], 6)
            self.assertEqual(len(summary["tasks"]), 2)
            self.assertEqual(len(tensortune.History(db).trials()), 6)
            self.assertIsNotNone(tensortune.best("gemm", (16, 32, 16), db=db))


if __name__ == "__main__":
    unittest.main()
