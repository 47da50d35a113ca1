"""The compare-mt-style workflow: corpus scores and n-gram tables of orders 1-4 for 2 systems (WMT21 en-de dev,
reference A; issue 14, Targets). mtdiag does it in two processes: one ``mtdiag score`` call (``--metrics``: by
default ``bleu,length_ratio``, the measures compare-mt computes here; ``all`` for mtdiag's default metrics) and one
``mtdiag ngrams --order 1,2,3,4`` call; compare-mt in one (BLEU and length ratio, n-gram difference analysis of
orders 1-4; its word-accuracy, bucket and example analyses switched off).

compare-mt is a benchmark-only tool, NOT a dependency of mtdiag (it is not in requirements*.txt). Install it in a
virtual environment of its own, never in mtdiag's: compare-mt 0.2.10 installs a top-level ``tests`` package into
site-packages, which shadows this repository's ``tests`` (``from tests.conftest import ...`` then fails). E.g.
``python -m venv /tmp/cmt && /tmp/cmt/bin/pip install compare-mt six`` (it needs ``six`` and does not declare it),
then ``--compare-mt /tmp/cmt/bin/compare-mt``. Without it the script times mtdiag alone and says so.

The two workflows run in turn (A B A B ...) and the ratio is taken pair by pair, so that drift in the machine's
load moves both sides alike; the medians are printed.

Usage: ``python benchmarks/bench_workflow.py [--runs 5]``
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import devdata

DATA = devdata.folder("wmt21/en-de")
SYSTEMS = ["Facebook-AI", "UEdin"]


def commands(compare_mt: str | None, metrics: str) -> tuple[str, str | None]:
    """(mtdiag workflow, compare-mt workflow or None) as shell command lines."""
    ref = DATA / "ref.A.txt"
    hyps = [DATA / f"newstest2021.en-de.{s}.txt" for s in SYSTEMS]
    named = " ".join(f"--hyp {shlex.quote(f'{s}={h}')}" for s, h in zip(SYSTEMS, hyps))
    mt = " ".join(f"--mt {shlex.quote(f'{s}={h}')}" for s, h in zip(SYSTEMS, hyps))
    python = shlex.quote(sys.executable)
    chosen = "" if metrics == "all" else f" --metrics {shlex.quote(metrics)}"
    ours = (f"{python} -m mtdiag score --ref {shlex.quote(str(ref))} {named}{chosen} > /dev/null && "
            f"{python} -m mtdiag ngrams --ht {shlex.quote(str(ref))} {mt} --order 1,2,3,4 > /dev/null")
    compare_mt = compare_mt or shutil.which("compare-mt")
    if compare_mt is None:
        return ours, None
    theirs = (f"{shlex.quote(compare_mt)} {shlex.quote(str(ref))} {' '.join(shlex.quote(str(h)) for h in hyps)} "
              "--compare_scores score_type=bleu score_type=length --compare_word_accuracies "
              "--compare_src_word_accuracies --compare_sentence_buckets --compare_sentence_examples "
              "--compare_ngrams compare_type=match > /dev/null")
    return ours, theirs


# Both tools run as installed for a user: Python keeps bytecode caches. pip compiled compare-mt's modules when it
# installed them; mtdiag's editable checkout gets its ``__pycache__`` on the warm-up run — unless the shell sets
# PYTHONDONTWRITEBYTECODE (this machine's does), which would recompile mtdiag's modules on every run (~0.07 s a
# process) and time the interpreter's compiler, not mtdiag. So the variable is dropped for both commands.
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def timed(command: str) -> float:
    start = time.perf_counter()
    subprocess.run(["sh", "-c", command], check=True, env=ENV)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--compare-mt", metavar="PATH", help="the compare-mt executable (default: on PATH)")
    parser.add_argument("--metrics", default="bleu,length_ratio", help="mtdiag score's metrics, or all "
                        "(default: %(default)s, as compare-mt)")
    args = parser.parse_args()
    ours, theirs = commands(args.compare_mt, args.metrics)
    timed(ours)  # warm-up: numba's cache, the page cache
    if theirs:
        timed(theirs)
    our_times, their_times, ratios = [], [], []
    for _ in range(args.runs):
        our_times.append(timed(ours))
        if theirs:
            their_times.append(timed(theirs))
            ratios.append(our_times[-1] / their_times[-1])
    print(f"mtdiag (score --metrics {args.metrics} + ngrams --order 1,2,3,4): median {statistics.median(our_times):.2f} s "
          f"(min {min(our_times):.2f}, max {max(our_times):.2f})")
    if theirs:
        print(f"compare-mt (BLEU, length, n-grams 1-4):  median {statistics.median(their_times):.2f} s "
              f"(min {min(their_times):.2f}, max {max(their_times):.2f})")
        print(f"paired ratio mtdiag / compare-mt: median {statistics.median(ratios):.2f}x "
              f"(target: <= 1.0x)")
    else:
        print("compare-mt not found (see this script's docstring): mtdiag timed alone")


if __name__ == "__main__":
    main()
