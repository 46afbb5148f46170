"""tensortune.file_utils: Kernel Tuner's file helpers, as its examples call them."""
import json
import os
import unittest

import numpy

import tensortune
from tensortune.file_utils import store_metadata_file, store_output_file
from support import Scratch

KERNEL = """
__kernel void scale(__global float *y, __global const float *x, float a, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = a * x[i];
}
"""


class FileUtilsTest(unittest.TestCase):
    def test_output_and_metadata_files_of_a_tuning_run(self):
        with Scratch() as d:
            x = numpy.arange(512, dtype=numpy.float32)
            y = numpy.zeros_like(x)
            params = {"block_size_x": [32, 64, 128]}
            results, env = tensortune.tune_kernel("scale", KERNEL, 512, [y, x, numpy.float32(3), numpy.int32(512)],
                                                  params, answer=[3 * x, None, None, None],
                                                  db=os.path.join(d, "h.db"))
            self.assertEqual(len(results), 3)
            # Kernel Tuner's T4 results file: `.json` added, one entry per config.
            store_output_file(os.path.join(d, "out", "scale"), results, params)
            with open(os.path.join(d, "out", "scale.json")) as f:
                doc = json.load(f)
            self.assertEqual(doc["metadata"], {"timeunit": "milliseconds"})
            self.assertTrue(doc["schema_version"])
            rows = doc["results"]
            self.assertEqual(sorted(r["configuration"]["block_size_x"] for r in rows), [32, 64, 128])
            by_block = {r["block_size_x"]: r for r in results}
            for row in rows:
                result = by_block[row["configuration"]["block_size_x"]]
                self.assertEqual(row["times"]["runtimes"], result["times"])
                self.assertEqual(row["times"]["compilation"], result["compile_time"])
                self.assertEqual(row["objectives"], ["time"])
                self.assertEqual(row["invalidity"], "correct")
                measured = {m["name"]: m for m in row["measurements"]}
                self.assertEqual(measured["time"]["value"], result["time"])
                self.assertEqual(measured["time"]["unit"], "ms")
                self.assertNotIn("block_size_x", measured)

            store_metadata_file(os.path.join(d, "meta"))
            with open(os.path.join(d, "meta.json")) as f:
                meta = json.load(f)["metadata"]
            self.assertTrue(meta["operating_system"])
            self.assertIn(f"tensortune=={tensortune.__version__}", meta["environment"]["requirements"])

    def test_several_objectives_are_refused(self):
        with Scratch() as d:
            with self.assertRaises(ValueError):
                store_output_file(os.path.join(d, "x"), [], {"a": [1]}, objective=["time", "energy"])
            self.assertFalse(os.path.exists(os.path.join(d, "x.json")))


if __name__ == "__main__":
    unittest.main()
