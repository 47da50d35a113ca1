"""What the learned judge adds to ``mtdiag score``: CPU time of ``evaluate`` (default metrics) with the judge and
without it, each run in a fresh process, alternating, several runs (``docs/spans.md``, "Cost").

"Without" is the same code with the judge's scores replaced by zeros and without the statistics only the judge reads
(chrF consensus): predicted MQM still predicts its spans and counts the missing words (what it cost before the
judge), so the difference is the judge alone — its features that nothing else computes (character consensus, the
checks the spans do not ask) and the model. CPU time is the
process's (every thread), read around ``evaluate`` alone (not the imports or reading the files); the machine's
load is printed beside the figures (``os.getloadavg``): a shared machine slows both, not exactly alike, so the
median and the least of the runs are printed (contention only adds CPU time: the least is the closest to an idle
machine's).

Usage: ``python benchmarks/bench_judge_cost.py [FOLDER] [--runs N]`` (default ``tests/data/dev/wmt21/en-de``:
12 systems × 1,002 segments).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FOLDER = REPO / "tests" / "data" / "dev" / "wmt21" / "en-de"

CHILD = """
import sys, time
sys.path.insert(0, {repo!r})
import numpy as np, pandas as pd
from mtdiag.io import load_folder
from mtdiag.scoring.evaluate import evaluate
if {off}:
    import mtdiag.spans.mqm as mqm
    from mtdiag.metrics.predicted_mqm import PredictedMQM
    PredictedMQM.reads = ()  # nor the character consensus the judge reads
    def zeros(report):
        index = report.segments.index
        return pd.DataFrame({{"relative": 0.0, "mqm": 0.0, "esa": 0.0}}, index=index)
    mqm.judged = zeros
evalset = load_folder({folder!r})
start = time.process_time()
report = evaluate(evalset)
print(time.process_time() - start)
"""


def one_run(folder: Path, off: bool) -> float:
    """CPU seconds of ``evaluate`` on ``folder`` in a fresh process, the judge ``off`` or on."""
    code = CHILD.format(repo=str(REPO), off=off, folder=str(folder))
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, nargs="?", default=DEFAULT_FOLDER)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    on, off = [], []
    for run in range(args.runs):
        load = os.getloadavg()[0]
        off.append(one_run(args.folder, True))
        on.append(one_run(args.folder, False))
        print(f"run {run + 1}: without {off[-1]:.2f} s, with {on[-1]:.2f} s "
              f"(+{100 * (on[-1] / off[-1] - 1):.0f} %), load {load:.1f}", flush=True)
    for name, pick in (("median", statistics.median), ("least", min)):
        base, judged = pick(off), pick(on)
        print(f"{name}: without {base:.2f} s, with {judged:.2f} s: the judge adds {100 * (judged / base - 1):.0f} % "
              f"({judged - base:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
