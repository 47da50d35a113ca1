"""Speed of ``mtdiag score`` against sacrebleu's CLI (issue: metrics core).

On ``../shared/data/dev/wmt21/en-de`` (1002 segments, 12 systems, 3 references) it times, as separate processes
(imports, reading and tokenising included, best of ``--repeat`` runs):

- ``mtdiag score --metrics otem,utem,waft,neva,bleu,chrf`` for all 12 systems in one process, and
- ``sacrebleu REFS -i SYSTEMS -m bleu chrf`` (BLEU and chrF only) for the same 12 systems,

and prints the ratios (targets: <= 0.3x sacrebleu for the six metrics, <= 0.5x with TER added), then the same
mtdiag run for one system. `farm-bench --vs` gives the paired medians quoted in docs/scaling.md.

Usage: ``python benchmarks/bench_score.py [--repeat 3]``
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "dev" / "wmt21" / "en-de"
METRICS = "otem,utem,waft,neva,bleu,chrf"


def best_time(command: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    refs = [str(DATA / f"ref.{name}.txt") for name in "ACD"]
    systems = sorted(DATA.glob("newstest2021.en-de.*.txt"))
    named = [f"{p.name.split('.')[-2]}={p}" for p in systems]
    def mtdiag_score(metrics: str) -> list[str]:
        return [sys.executable, "-m", "mtdiag", "score", "--metrics", metrics,
                *(arg for ref in refs for arg in ("--ref", ref))]

    mtdiag = mtdiag_score(METRICS)
    sacrebleu = [sys.executable, "-m", "sacrebleu", *refs, "-i", *map(str, systems), "-m", "bleu", "chrf"]

    hyps = [arg for n in named for arg in ("--hyp", n)]
    ours = best_time(mtdiag + hyps, args.repeat)
    with_ter = best_time(mtdiag_score(METRICS + ",ter") + hyps, args.repeat)
    theirs = best_time(sacrebleu, args.repeat)
    one = best_time(mtdiag + ["--hyp", named[0]], args.repeat)
    print(f"data: {DATA} ({len(systems)} systems, {len(refs)} references)")
    print(f"mtdiag score ({METRICS}), {len(systems)} systems: {ours:.2f} s")
    print(f"mtdiag score ({METRICS},ter), {len(systems)} systems: {with_ter:.2f} s")
    print(f"sacrebleu -m bleu chrf, {len(systems)} systems:      {theirs:.2f} s")
    print(f"ratio mtdiag / sacrebleu: {ours / theirs:.2f}x  (target <= 0.3x with 3x the metrics)")
    print(f"ratio mtdiag with TER / sacrebleu: {with_ter / theirs:.2f}x  (target <= 0.5x)")
    print(f"mtdiag score ({METRICS}), 1 system:  {one:.2f} s")


if __name__ == "__main__":
    main()
