"""Speed of triage without references (issue 20): the consensus metric and every reference-free check
(language identification included) on 12 systems × 2,000 segments — target ≤ 2 s on this machine.

The set is WMT21 zh-en from the development data (``benchmarks/devdata.py``) with its reference withheld: its 1,948 segments and the first 52
again (2,000), 12 systems. Timed from the loaded set: ``evaluate`` (tokenisation and consensus), then each check
of ``mtdiag.triage.checks`` that applies without references, then the queue. Each run is a fresh report (nothing cached);
the fastest and median of ``--runs`` runs are printed.

Run from the repository root: ``python benchmarks/bench_reference_free.py [--runs 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd

import devdata

REPO = Path(__file__).resolve().parents[1]
ZH_EN = devdata.folder("wmt21/zh-en")
sys.path.insert(0, str(REPO))

from mtdiag.triage import checks, ranking  # noqa: E402
from mtdiag.scoring.evaluate import evaluate  # noqa: E402
from mtdiag.io import load_folder  # noqa: E402

SEGMENTS = 2000


def reference_free_set():
    evalset = load_folder(ZH_EN)
    n = evalset.n_segments
    rows = list(range(n)) + list(range(SEGMENTS - n))
    index = pd.RangeIndex(SEGMENTS, name="seg")

    def take(frame):
        return frame.iloc[rows].set_axis(index, axis=0)

    return replace(evalset, segments=take(evalset.segments), refs=take(evalset.refs).iloc[:, :0],
                   hyps=take(evalset.hyps), human=None, terms=None, annotations=None, warnings=())


def one_run(evalset) -> dict[str, float]:
    times = {}
    start = time.perf_counter()
    report = evaluate(evalset)
    times["evaluate (tokens + consensus)"] = time.perf_counter() - start
    for check in checks.active_checks(report):
        t = time.perf_counter()
        checks.fired(report, check)
        times[check.name] = time.perf_counter() - t
    t = time.perf_counter()
    ranking.worst_first(report)
    times["queue (problem score, order)"] = time.perf_counter() - t
    times["total"] = time.perf_counter() - start
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    evalset = reference_free_set()
    print(f"{len(evalset.systems)} systems × {evalset.n_segments:,} segments, no reference\n")
    runs = [one_run(evalset) for _ in range(args.runs)]
    print("| step | fastest (s) | median (s) |\n|---|---|---|")
    for step in runs[0]:
        values = [r[step] for r in runs]
        print(f"| {step} | {min(values):.3f} | {statistics.median(values):.3f} |")
    total = statistics.median(r["total"] for r in runs)
    print(f"\nMedian total {total:.2f} s (target ≤ 2 s: {'met' if total <= 2 else 'not met'}).")


if __name__ == "__main__":
    main()
