"""The example scripts (python/examples) run as a Kernel Tuner user runs them."""
import os
import subprocess
import sys
import unittest

from support import SOURCE_DIR, Scratch


class ExamplesTest(unittest.TestCase):
    def run_example(self, name, cwd):
        script = os.path.join(SOURCE_DIR, "python", "examples", name)
        r = subprocess.run([sys.executable, script], cwd=cwd, capture_output=True, text=True, timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return r.stdout

    def test_vector_add(self):
        with Scratch() as d:
            out = self.run_example("vector_add.py", d)
            self.assertIn("5 configs on", out)
            self.assertTrue(os.path.exists(os.path.join(d, "history.db")))
            again = self.run_example("vector_add.py", d)  # new random data, same kernel: resumes
            self.assertIn("5 configs on", again)

    def test_matmul(self):
        with Scratch() as d:
            out = self.run_example("matmul.py", d)
            self.assertIn("8 configs on", out)


if __name__ == "__main__":
    unittest.main()
