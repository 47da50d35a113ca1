"""Benchmark of the HT-only / MT-only n-gram tables (Aikawa & Rarrick §2.2; METRICS.md §4).

1. All orders (1-4) and all 12 systems of ``wmt21/zh-en`` of the development data (``benchmarks/devdata.py``) in one ``ngram_tables`` call.
2. Scaling: a synthetic 1,000,000-segment corpus built by repeating the zh-en reference and one system
   (target: under 60 s and under 4 GB peak memory).

Run from the repository root: ``python benchmarks/bench_ngrams.py [--segments N]``. Peak memory is the
process's maximum resident set size (``resource.getrusage``), so each part runs in its own child process.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

import devdata

REPO = Path(__file__).resolve().parents[1]
ZH_EN = devdata.folder("wmt21/zh-en")
sys.path.insert(0, str(REPO))


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def _dev_tables() -> str:
    from mtdiag.io import load_folder
    from mtdiag.metrics.ht_mt_ngrams import ngram_tables

    evalset = load_folder(ZH_EN)
    start = time.perf_counter()
    tables = ngram_tables(evalset, orders=(1, 2, 3, 4))
    seconds = time.perf_counter() - start
    rows = sum(len(t.ht_only) + len(t.mt_only) + len(t.skewed) for s in tables.tables.values() for t in s.values())
    return (f"zh-en dev: {evalset.n_segments} segments, {len(evalset.systems)} systems, orders 1-4: "
            f"{seconds:.2f} s, {rows} table rows, peak RSS {_peak_mb():.0f} MB")


def _scaling(n_segments: int) -> str:
    import numpy as np
    import pandas as pd

    from mtdiag.core.evalset import EvalSet
    from mtdiag.io import load_folder
    from mtdiag.metrics.ht_mt_ngrams import ngram_tables

    dev = load_folder(ZH_EN)
    system = dev.systems[0]
    repeat = np.resize(np.arange(dev.n_segments), n_segments)
    index = pd.RangeIndex(n_segments, name="seg")
    evalset = EvalSet(
        segments=pd.DataFrame(index=index),
        refs=pd.DataFrame({"A": dev.refs["A"].to_numpy()[repeat]}, index=index),
        hyps=pd.DataFrame({system: dev.hyps[system].to_numpy()[repeat]}, index=index),
        lang_pair="zh-en",
    )
    before = _peak_mb()
    start = time.perf_counter()
    tables = ngram_tables(evalset, orders=(1, 2, 3, 4))
    seconds = time.perf_counter() - start
    top = tables.table(system, 3).ht_only.head(1)
    return (f"synthetic: {n_segments:,} segments (zh-en ref A + {system}, repeated), orders 1-4: {seconds:.1f} s, "
            f"peak RSS {_peak_mb():.0f} MB (after loading the data: {before:.0f} MB); "
            f"top HT-only trigram {top.ngram.tolist()} x{top.ht_count.tolist()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segments", type=int, default=1_000_000)
    parser.add_argument("--part", choices=("dev", "scaling"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.part == "dev":
        print(_dev_tables())
    elif args.part == "scaling":
        print(_scaling(args.segments))
    else:
        for part in ("dev", "scaling"):
            subprocess.run([sys.executable, __file__, "--part", part, "--segments", str(args.segments)], check=True)


if __name__ == "__main__":
    main()
