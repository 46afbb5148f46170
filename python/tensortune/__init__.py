"""tensortune from Python: tune your own OpenCL kernels with Kernel Tuner's ``tune_kernel``,
tune tensor operators, and read the SQLite history of every trial.

Three uses (docs/python.md):

* ``tensortune.tune_kernel(kernel_name, kernel_source, problem_size, arguments, tune_params, ...)``:
  Kernel Tuner's call for OpenCL kernels, every trial recorded in ``db`` (``history.db``): the
  same kernel tuned again resumes and never measures a configuration twice.
* ``tensortune.tune(op, shape, ...)``: a built-in tensor operator, as ``tensortune tune``.
* ``tensortune.History(db)``: the trials as lists of dicts, SQL, pandas.
* ``tensortune.run_network(network, inputs, db=...)`` and ``run_operator(op, shape, arrays, db=...)``:
  the tuned kernels run on numpy arrays through the runtime, checked and timed per layer.
"""
from tensortune.kernel import tune_kernel, run_kernel, STRATEGIES
from tensortune.history import History, import_history, export
from tensortune.operators import tune, tune_network, best
from tensortune.running import run_network, run_operator
from tensortune import file_utils

__all__ = ["tune_kernel", "run_kernel", "tune", "tune_network", "best", "run_network", "run_operator", "History", "import_history", "export", "file_utils", "STRATEGIES"]
__version__ = "0.1.0"
