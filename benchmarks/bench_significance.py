"""Benchmark: paired significance for every metric, 12 WMT21 en-de systems (3 references) against a baseline.

Times, separately: scoring (``mtdiag.scoring.evaluate.evaluate``: tokenisation, statistics), the paired bootstrap itself
(1,000 resamples, every metric, every system: :func:`mtdiag.analysis.significance.paired_bootstrap`; target < 2 s) and the
paired approximate randomisation (10,000 trials); then, side by side, sacrebleu's own ``--paired-bs`` for BLEU and
chrF on the same files (its CLI, through ``subprocess``: scoring + resampling, as a user runs it) and mtdiag's
equivalent (BLEU + chrF scoring + bootstrap).

Run: ``python benchmarks/bench_significance.py [--repeat 3] [--no-sacrebleu]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
import time
from pathlib import Path

import devdata

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mtdiag.scoring.evaluate import Options, evaluate  # noqa: E402
from mtdiag.analysis.significance import paired_bootstrap, paired_randomization  # noqa: E402
from mtdiag.io import load_files  # noqa: E402
from mtdiag.metrics import REGISTRY  # noqa: E402

DATA = devdata.folder("wmt21/en-de")
BASELINE = "Facebook-AI"


def metric_names() -> tuple[str, ...]:
    """otem, utem, waft, neva, bleu, chrf, and ter when mtdiag.metrics.ter exists and is registered."""
    names = ["otem", "utem", "waft", "neva", "bleu", "chrf"]
    if importlib.util.find_spec("mtdiag.metrics.ter") is not None and "ter" in REGISTRY:
        names.append("ter")
    return tuple(names)


def files() -> tuple[dict[str, Path], dict[str, Path]]:
    refs = {name: DATA / f"ref.{name}.txt" for name in "ACD"}
    hyps = {p.name.split(".")[-2]: p for p in sorted(DATA.glob("newstest2021.en-de.*.txt"))}
    return refs, hyps


def best_of(repeat: int, fn):
    """(best wall time in seconds, last result) over ``repeat`` runs."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def sacrebleu_cli(refs: dict[str, Path], hyps: dict[str, Path]) -> float:
    """Wall time of ``sacrebleu REFS -i BASELINE SYSTEMS... --paired-bs -m bleu chrf -f text`` (scoring +
    resampling). Text output: sacrebleu 2.6's default JSON output fails on numpy 2 (chrF means are float32)."""
    executable = shutil.which("sacrebleu")
    command = [executable] if executable else [sys.executable, "-m", "sacrebleu"]
    systems = [hyps[BASELINE]] + [p for name, p in hyps.items() if name != BASELINE]
    command += [str(p) for p in refs.values()] + ["-i", *map(str, systems), "--paired-bs", "-m", "bleu", "chrf",
                                                   "--format", "text"]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is reported")
    parser.add_argument("--no-sacrebleu", action="store_true", help="skip the sacrebleu CLI run")
    args = parser.parse_args()

    refs, hyps = files()
    evalset = load_files(refs=refs, hyps=hyps, name="wmt21.en-de")
    names = metric_names()
    n_seg, n_sys = evalset.n_segments, len(evalset.systems)
    print(f"data: {DATA} — {n_seg} segments, {n_sys} systems, {len(refs)} references; baseline {BASELINE}")
    print(f"metrics: {', '.join(names)}")

    t_score, report = best_of(1, lambda: evaluate(evalset, Options(metrics=names)))
    print(f"mtdiag scoring (all metrics, statistics once)        {t_score:7.3f} s")
    t_bs, frame = best_of(args.repeat, lambda: paired_bootstrap(report, BASELINE, n_samples=1000))
    status = "OK" if t_bs < 2.0 else "OVER TARGET"
    print(f"mtdiag paired bootstrap, 1000 resamples, all metrics {t_bs:7.3f} s   (target < 2 s: {status})")
    t_ar, _ = best_of(args.repeat, lambda: paired_randomization(report, BASELINE, n_trials=10000))
    print(f"mtdiag paired approx. randomisation, 10000 trials    {t_ar:7.3f} s   (+1000-resample CIs)")

    subset = Options(metrics=("bleu", "chrf"))
    t_std, _ = best_of(1, lambda: paired_bootstrap(evaluate(evalset, subset), BASELINE, n_samples=1000))
    print(f"mtdiag BLEU+chrF scoring + paired bootstrap          {t_std:7.3f} s")
    if not args.no_sacrebleu:
        t_sb = sacrebleu_cli(refs, hyps)
        print(f"sacrebleu --paired-bs -m bleu chrf (CLI, subprocess) {t_sb:7.3f} s   ({t_sb / t_std:.0f}x mtdiag)")
    significant = int(frame["significant"].sum())
    print(f"({significant} of {len(frame) - len(names)} system-metric comparisons significant at p < 0.05)")


if __name__ == "__main__":
    main()
