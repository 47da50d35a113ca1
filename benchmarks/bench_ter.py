"""Benchmark: mtdiag's TER (compiled port of sacrebleu's lib_ter.py; Snover et al. 2006) vs sacrebleu's TER.

Data: ``wmt21/zh-en`` of the development data (``benchmarks/devdata.py``) — 12 systems x 1,948 segments, reference A. Both sides run on one core.

- sacrebleu: ``TER().corpus_score(hyps, [ref])`` per system (its per-segment statistics are recorded on the way, so
  the comparison below costs no second run).
- mtdiag: :func:`mtdiag.metrics.ter.ter_statistics` per system (references tokenised once, then cached), timed
  1. on a first call in a fresh process with an empty numba cache (numba compiles the kernel),
  2. on a first call in a fresh process with numba's on-disk cache filled (the normal case after one run),
  3. warm, in this process, with the reference cache cleared first.

Every segment's [edits, reference length] must be identical, every corpus score equal to 1e-9. Target: mtdiag
>= 10x faster. Run from the repository root: ``python benchmarks/bench_ter.py [--systems N] [--digests]``
(sacrebleu needs ~45 s per system). ``--digests`` also prints, per system, the SHA-256 of sacrebleu's statistics
and its corpus score: the constants ``tests/test_ter.py`` checks every zh-en segment against.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import devdata

REPO = Path(__file__).resolve().parents[1]
ZH_EN = devdata.folder("wmt21/zh-en")
sys.path.insert(0, str(REPO))


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def load(n_systems: int) -> tuple[list[str], dict[str, list[str]]]:
    ref = read_lines(ZH_EN / "ref.A.txt")
    paths = sorted(ZH_EN.glob("newstest2021.zh-en.*.txt"))[:n_systems]
    return ref, {p.name.split(".")[-2]: read_lines(p) for p in paths}


def run_ours(n_systems: int) -> tuple[float, dict]:
    """Seconds for all systems, and the per-system statistics."""
    from mtdiag.metrics.ter import ter_statistics

    ref, hyps = load(n_systems)
    start = time.perf_counter()
    stats = {system: ter_statistics(lines, [ref]) for system, lines in hyps.items()}
    return time.perf_counter() - start, stats


def first_call_in_fresh_process(n_systems: int, numba_cache_dir: str | None) -> float:
    """Seconds of run_ours (import of mtdiag.metrics.ter excluded, numba import and compile/load included)."""
    env = dict(os.environ)
    if numba_cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = numba_cache_dir
    code = (
        f"import json, sys; sys.path.insert(0, {str(REPO / 'benchmarks')!r}); import bench_ter; "
        f"import mtdiag.metrics.ter; print(json.dumps(bench_ter.run_ours({n_systems})[0]))"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_sacrebleu(n_systems: int) -> tuple[float, dict, dict]:
    from sacrebleu.metrics import TER

    class RecordingTER(TER):
        """sacrebleu's TER, keeping the per-segment statistics that corpus_score aggregates."""

        def _aggregate_and_compute(self, stats):
            self.segment_stats = stats
            return super()._aggregate_and_compute(stats)

    ref, hyps = load(n_systems)
    stats, scores = {}, {}
    start = time.perf_counter()
    for system, lines in hyps.items():
        metric = RecordingTER()
        scores[system] = metric.corpus_score(lines, [ref]).score
        stats[system] = metric.segment_stats
    return time.perf_counter() - start, stats, scores


def stats_digest(stats) -> str:
    """SHA-256 of per-segment statistics as a little-endian float64 (n_segments, 2) array."""
    import numpy as np

    return hashlib.sha256(np.asarray(stats, dtype="<f8").tobytes()).hexdigest()


def main() -> None:
    import numpy as np

    from mtdiag.metrics.ter import _reference_set, ter_scores

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=12, help="how many zh-en systems (default: all 12)")
    parser.add_argument("--digests", action="store_true", help="print sacrebleu's statistics digests per system")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as empty_cache:
        compile_first = first_call_in_fresh_process(args.systems, empty_cache)
    cached_first = first_call_in_fresh_process(args.systems, None)
    run_ours(args.systems)  # make sure this process has the kernel loaded
    _reference_set.cache_clear()
    warm, ours = run_ours(args.systems)

    sacre_seconds, sacre_stats, sacre_scores = run_sacrebleu(args.systems)

    n_segments = 0
    for system, expected in sacre_stats.items():
        expected = np.array(expected, dtype=float)
        if not np.array_equal(ours[system], expected):
            bad = np.flatnonzero((ours[system] != expected).any(axis=1))
            raise SystemExit(f"MISMATCH {system}: segments {bad[:10].tolist()}")
        corpus = float(ter_scores(ours[system].sum(axis=0)))
        if abs(corpus - sacre_scores[system]) > 1e-9:
            raise SystemExit(f"MISMATCH {system}: corpus {corpus} vs sacrebleu {sacre_scores[system]}")
        n_segments += len(expected)

    print(f"zh-en: {len(sacre_stats)} systems, {n_segments} segment pairs: all per-segment statistics identical, "
          f"corpus scores equal")
    if args.digests:
        import sacrebleu

        print(f"sacrebleu {sacrebleu.__version__} digests:")
        for system, expected in sacre_stats.items():
            print(f"    {system!r}: ({stats_digest(expected)!r}, {sacre_scores[system]!r}),")
    print(f"sacrebleu TER().corpus_score           {sacre_seconds:8.2f} s")
    for label, seconds in (
        ("mtdiag first call, numba compiles", compile_first),
        ("mtdiag first call, numba cache filled", cached_first),
        ("mtdiag warm", warm),
    ):
        print(f"{label:38s} {seconds:8.2f} s   {sacre_seconds / seconds:7.1f}x faster")
    if sacre_seconds / warm < 10:
        raise SystemExit("target missed: mtdiag TER is less than 10x faster than sacrebleu")


if __name__ == "__main__":
    main()
