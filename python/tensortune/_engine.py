"""The compiled engine and where it finds tensortune-worker (internal)."""
import os

from tensortune import _config
from tensortune import _tensortune  # noqa: F401  (re-exported)


def worker_path():
    """tensortune-worker: $TENSORTUNE_WORKER, else the one this module was built or installed with."""
    if os.environ.get("TENSORTUNE_WORKER"):
        return os.environ["TENSORTUNE_WORKER"]
    if _config.WORKER_PATH:
        return _config.WORKER_PATH
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, _config.WORKER_RELATIVE))
