#!/usr/bin/python3
"""Cold against warm-started replays, one row per tuner: median evaluations to 95% and 99% of
each space's optimum, "cold -> warm" ("never": fewer than half of the seeds reached it).

Reads the JSON lines of `tensortune compare --warm-from ... --runs-out FILE` (tuner labels
"NAME" and "NAME warm"), as bench/warm_start_tuners.sh writes them.

    bench/warm_start_table.py runs.jsonl
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from search_results import load, summarise  # noqa: E402


def cell(value):
    return "never" if math.isinf(value) else f"{value:.0f}"


def main():
    spaces = load(sys.argv[1:])
    names = []
    for by in spaces.values():
        for label in by:
            name = label[:-5] if label.endswith(" warm") else label
            if name not in names:
                names.append(name)
    short = {space: space.replace("_kernel on ", " ").replace("NVIDIA RTX ", "").replace("AMD Radeon PRO ", "")
             for space in spaces}
    for target in (0.95, 0.99):
        print(f"Evaluations to {100 * target:.0f}% of the optimum, cold -> warm (median over seeds):\n")
        print("| tuner | " + " | ".join(short[s] for s in spaces) + " |")
        print("|---" * (len(spaces) + 1) + "|")
        for name in names:
            cells = []
            for by in spaces.values():
                cold = summarise(by[name])[target][0] if name in by else math.inf
                warm = summarise(by[name + " warm"])[target][0] if name + " warm" in by else None
                cells.append(cell(cold) + (f" -> {cell(warm)}" if warm is not None else " (cold only)"))
            print(f"| {name} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()
