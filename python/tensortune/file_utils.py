"""Kernel Tuner's file helpers, as its examples use them."""
import json
import os

__all__ = ["read_file", "write_file", "get_temp_filename", "delete_temp_file", "read_cache", "store_output_file"]


def read_file(filename):
    """The text of a file, or None when it does not exist."""
    if not os.path.isfile(filename):
        return None
    with open(filename, "r") as f:
        return f.read()


def write_file(filename, string):
    """Writes `string` to `filename` (replacing it)."""
    with open(filename, "w") as f:
        f.write(string)


def get_temp_filename(suffix=None):
    """A fresh temporary file name (the file is not kept open)."""
    import tempfile
    fd, name = tempfile.mkstemp(suffix=suffix or "")
    os.close(fd)
    return name


def delete_temp_file(filename):
    """Removes a file, if it is there."""
    try:
        os.remove(filename)
    except FileNotFoundError:
        pass


def read_cache(filename):
    """A Kernel Tuner cache file as a dict (an open one, as written while tuning, too)."""
    text = read_file(filename)
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return json.loads(text.rstrip().rstrip(",") + "}\n}")


def store_output_file(output_filename, results, tune_params, objective="time"):
    """Writes the results of tune_kernel as a JSON list, as Kernel Tuner's store_output_file."""
    keys = list(tune_params) + [objective]
    rows = [{k: r[k] for k in keys if k in r} for r in results]
    with open(output_filename, "w") as f:
        json.dump(rows, f, indent=1)
