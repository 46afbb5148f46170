"""run_network and run_operator: tuned GEMMs run on numpy arrays through the runtime, their
outputs against numpy's product, each layer timed; refusals are ValueErrors."""
import json
import os
import unittest

import numpy

import tensortune
from support import Scratch


class RunNetworkTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        d = cls.enterClassContext(Scratch())
        cls.db = os.path.join(d, "h.db")
        cls.network = os.path.join(d, "tiny.json")
        # fc1: (16 x 16) @ (16 x 32); fc2 reads fc1's 16 x 32 output: (16 x 32) @ (32 x 16).
        with open(cls.network, "w") as f:
            json.dump({"name": "tiny", "layers": [{"name": "fc1", "op": "gemm", "shape": "16,32,16"},
                                                  {"name": "fc2", "op": "gemm", "shape": "16,16,32"}]}, f)
        for shape in ((16, 32, 16), (16, 16, 32)):
            tensortune.tune("gemm", shape, tuner="random", trials=2, batch_size=2, min_time=0.01, db=cls.db)

    def test_a_network_runs_on_the_given_arrays_and_matches_numpy(self):
        rng = numpy.random.default_rng(1)
        a, b1, b2 = (rng.integers(-2, 3, size=s).astype(numpy.float32) for s in ((16, 16), (16, 32), (32, 16)))
        result = tensortune.run_network(self.network, inputs={"fc1": [a, b1], "fc2": [None, b2]}, db=self.db,
                                        min_runs=2, min_time=0)
        self.assertEqual(result["outputs"]["fc1"].shape, (16, 32))
        numpy.testing.assert_allclose(result["outputs"]["fc1"], a @ b1, atol=1e-4)
        numpy.testing.assert_allclose(result["outputs"]["fc2"], (a @ b1) @ b2, atol=1e-3)
        self.assertEqual([l["check"] for l in result["layers"]], ["ok", "ok"])
        self.assertEqual([l["origin"] for l in result["layers"]], ["exact", "exact"])
        self.assertTrue(result["layers"][1]["chained"])
        self.assertTrue(all(t > 0 for t in result["times_s"].values()), result["times_s"])
        self.assertGreaterEqual(result["runs"], 2)

    def test_one_operator_runs_on_arrays(self):
        rng = numpy.random.default_rng(2)
        a, b = rng.standard_normal((16, 16)), rng.standard_normal((16, 32))  # float64: converted
        out, time_s, layer = tensortune.run_operator("gemm", (16, 32, 16), [a, b], db=self.db, min_runs=1,
                                                     min_time=0)
        numpy.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)
        self.assertGreater(time_s, 0)
        self.assertEqual(layer["workload"], "gemm:m=16,n=32,k=16")

    def test_refusals_are_value_errors(self):
        with self.assertRaisesRegex(ValueError, "has 3 values"):
            tensortune.run_operator("gemm", (16, 32, 16), [numpy.ones(3), numpy.ones((16, 32))], db=self.db)
        with self.assertRaisesRegex(ValueError, "no layer"):
            tensortune.run_network(self.network, inputs={"fc9": [None]}, db=self.db)
        with self.assertRaises(ValueError):  # never tuned, and fallbacks refused
            tensortune.run_operator("gemm", (8, 8, 8), [numpy.ones((8, 8)), numpy.ones((8, 8))], db=self.db,
                                    exact_only=True)
        with self.assertRaisesRegex(ValueError, "either db"):
            tensortune.run_network(self.network)


if __name__ == "__main__":
    unittest.main()
