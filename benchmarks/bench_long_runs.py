"""The work a run of one word held thousands of times by several outputs causes (``"ha " * N`` in three outputs of
one segment, a short reference): scoring with the default metrics, then the suspect-reference check, timed in one
process for each N.

The outputs' agreement with each other (chrF consensus, which the learned judge reads, consensus, and the check's
agreement read from them: ``Σ_{j≠s} min(c_s, c_j)``, :func:`mtdiag.metrics.consensus.matches_with_the_others`) once
took a pass over the table per count level — 50,000 passes for N = 50,000. docs/scaling.md ("The outputs' agreement counted
once") has the figures before and after.

Usage: ``python benchmarks/bench_long_runs.py [--runs N] [--sizes 1000,10000,50000]``; run it with ``PYTHONPATH``
set to another checkout to time that one.
"""

from __future__ import annotations

import argparse
import statistics
import time

from mtdiag.core.evalset import evalset_from_lists
from mtdiag.scoring.evaluate import evaluate
from mtdiag.triage.checks.suspect_reference import suspect_references


def long_run_set(size: int):
    """Three outputs, two segments: the first ``"ha " * size`` in every output (one with a word more)."""
    run = "ha " * size
    return evalset_from_lists({"A": ["ha ha", "the cat"]},
                              {"x": [run, "the cat"], "y": [run, "a cat"], "z": [run + "x", "the dog"]})


def seconds(size: int) -> float:
    """Wall seconds to score the set of ``size`` and read its suspect references."""
    start = time.perf_counter()
    suspect_references(evaluate(long_run_set(size)))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="1000,10000,50000")
    args = parser.parse_args()
    seconds(10)  # imports and the TER kernel's load, not timed
    for size in (int(s) for s in args.sizes.split(",")):
        times = [seconds(size) for _ in range(args.runs)]
        print(f"'ha ' x {size:>7,} in 3 outputs: median {statistics.median(times):.2f} s "
              f"(min {min(times):.2f}, max {max(times):.2f}, {args.runs} runs)")


if __name__ == "__main__":
    main()
