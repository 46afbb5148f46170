"""no_winograd=True on tune_network and tune: the Winograd sketches are left out, as the command
line's --no-winograd does (simulated device: no OpenCL needed)."""
import json
import os
import unittest

import tensortune
from support import Scratch

WINOGRAD_TRIALS = ("SELECT count(*) AS n FROM trials t JOIN kernel_templates k ON k.id = t.template_id "
                   "WHERE k.name LIKE '%winograd%'")


class NoWinogradTest(unittest.TestCase):
    def tune_tiny_conv(self, d, **kwargs):
        network = os.path.join(d, "conv.json")
        with open(network, "w") as f:  # 3x3 stride 1: the Winograd sketches can compute it
            json.dump({"name": "conv", "layers": [
                {"name": "c", "op": "conv2d", "shape": "n=1,ci=16,h=6,w=6,co=16,kh=3,kw=3,stride=1,pad=1"}]}, f)
        db = os.path.join(d, "h.db")
        summary = tensortune.tune_network(network, trials=40, device="fake", db=db, **kwargs)
        self.assertEqual(summary["trials_used"], 40)
        history = tensortune.History(db)
        self.assertEqual(len(history.trials()), 40)
        return history.sql(WINOGRAD_TRIALS)[0]["n"]

    def test_tune_network_without_winograd_records_no_winograd_trial(self):
        with Scratch() as d:
            self.assertEqual(self.tune_tiny_conv(d, no_winograd=True), 0)

    def test_tune_network_by_default_tries_the_winograd_sketches(self):
        with Scratch() as d:
            self.assertGreater(self.tune_tiny_conv(d), 0)

    def test_tune_refuses_a_named_winograd_sketch(self):
        with Scratch() as d:
            shape = {"n": 1, "ci": 16, "h": 6, "w": 6, "co": 16, "kh": 3, "kw": 3, "stride": 1, "pad": 1}
            with self.assertRaisesRegex(ValueError, "Winograd sketch, which --no-winograd excludes"):
                tensortune.tune("conv2d", shape, template="conv2d_winograd_f2_nchwc", trials=2, device="fake",
                                db=os.path.join(d, "h.db"), no_winograd=True)
            self.assertFalse(os.path.exists(os.path.join(d, "h.db")))  # refused before anything is written


if __name__ == "__main__":
    unittest.main()
