"""Paired timing of two commands, each run as its own process (used by the benchmarks that compare with a CLI).

The commands run in turn — A B A B … after one warm-up run of each — and the ratio A/B is taken pair by pair, so
that a change in the machine's load (it is shared) moves both sides of a pair alike; the medians are reported.
Each run's user and system CPU seconds and its peak resident memory are the operating system's accounting of the
finished child (``os.wait4``), its wall time a monotonic clock around it. Both commands run as installed for a
user: with bytecode caches (a shell that sets ``PYTHONDONTWRITEBYTECODE`` would time Python's compiler instead).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from dataclasses import dataclass
from typing import Sequence

ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


@dataclass(frozen=True)
class Run:
    """One finished run: wall, user and system seconds, peak resident memory in MiB, exit status."""

    wall: float
    user: float
    sys: float
    peak_mib: float
    status: int


@dataclass(frozen=True)
class Paired:
    """The runs of two commands taken in turn, with medians and the median of the pairwise ratios."""

    a: list[Run]
    b: list[Run]

    def median(self, side: str, field: str) -> float:
        return statistics.median(getattr(run, field) for run in getattr(self, side))

    def ratio(self, field: str) -> float:
        """Median over the pairs of A's figure over B's."""
        return statistics.median(getattr(x, field) / getattr(y, field) for x, y in zip(self.a, self.b))


def run(command: Sequence[str]) -> Run:
    """Run ``command`` once (output thrown away) and account for it; a failure raises ``RuntimeError``."""
    start = time.perf_counter()
    process = subprocess.Popen(list(command), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=ENV)
    stderr = process.stderr.read()
    process.stderr.close()
    _, status, usage = os.wait4(process.pid, 0)  # reaped here, with the child's own accounting
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise RuntimeError(f"{' '.join(command[:4])} ... exited with {process.returncode}: {stderr.decode()[-500:]}")
    return Run(wall, usage.ru_utime, usage.ru_stime, usage.ru_maxrss / 1024, process.returncode)


def paired(a: Sequence[str], b: Sequence[str], runs: int = 5, warmup: int = 1) -> Paired:
    """``runs`` counted runs of each command in turn after ``warmup`` runs of each (page cache, bytecode and
    compiled-kernel caches)."""
    for _ in range(warmup):
        run(a)
        run(b)
    results_a, results_b = [], []
    for _ in range(runs):
        results_a.append(run(a))
        results_b.append(run(b))
    return Paired(results_a, results_b)
