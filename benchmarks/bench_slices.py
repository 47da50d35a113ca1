"""Time of a slice on 100k segments x 4 systems: its corpus scores and a 1,000-sample paired bootstrap (issue 21).

The set is ``bench_scale.py``'s (the WMT21 en-de dev lines cycled to 100,000 segments, source, reference A and four
systems; its builder is reused). It is scored once with the default metrics (the time is printed, but it is not a
slice's: a slice reuses these statistics). Then, for slices of several sizes, each step a user waits for is timed
(see below for how the runs are summed up):

- ``mask``: the expression evaluated over the report's fields (``mtdiag.slices.segment_mask``; the fields it reads
  are computed on first use and kept, as in the dashboard — the first run's time is printed separately);
- ``slice``: the sliced report with every corpus score (rows of the statistics taken, corpus formulas on their
  sums: ``slice_report`` and ``Report.corpus``);
- ``bootstrap``: the paired bootstrap of every system against a baseline for every metric (1,000 resamples,
  ``mtdiag.analysis.significance.significance``), and of the two systems the Compare page and the slice finder compare, on chrF;
- ``total``: mask + slice + the every-metric bootstrap — what ``score --where EXPR --paired-bs`` adds to scoring.

Each figure is the fastest of ``--repeat`` runs and, in brackets, their median (the machine is shared: the
fastest run is what the code costs, the median what a user may wait). Target: total <= 1 s. ``--finder`` also
times ``mtdiag.slices.find_slices`` over the whole 100k set, with each of its tests (departure, gap).

Usage: ``python benchmarks/bench_slices.py [--repeat 5] [--workdir DIR] [--finder] [--data DIR]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import devdata  # noqa: E402
from bench_scale import SYSTEMS, build  # noqa: E402

from mtdiag.scoring.evaluate import evaluate  # noqa: E402
from mtdiag.analysis.significance import significance  # noqa: E402
from mtdiag.io import load_files  # noqa: E402
from mtdiag.slices import find_slices, segment_mask, slice_report  # noqa: E402
from mtdiag.slices.finder import TESTS  # noqa: E402

N_SEGMENTS = 100_000
BASELINE, OTHER = SYSTEMS[0], SYSTEMS[1]
EXPRESSIONS = (
    "seg_id <= 1000",
    "src_len >= 20 and src_len <= 29",
    f"chrf[{OTHER}] < chrf[{BASELINE}] and ref_len >= 30",
    "seg_id <= 25000",
    f'chrf[{BASELINE}] < 60 or hyp[{OTHER}] ~ "Corona"',
    "seg_id <= 50000",
    "seg_id > 0",
)


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--finder", action="store_true", help="also time the slice finder on the whole set")
    parser.add_argument("--data", help=f"the development data (default: ${devdata.ENV_VAR}, else {devdata.DEFAULT})")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="mtdiag-slices-"))
    workdir.mkdir(parents=True, exist_ok=True)
    files = build(workdir, N_SEGMENTS, SYSTEMS, devdata.folder("wmt21/en-de", args.data))
    evalset = load_files(src=str(files["src"]), refs=[("A", str(files["ref"]))],
                         hyps=[(s, str(files[s])) for s in SYSTEMS], name="bench", lang_pair="en-de")
    seconds, report = timed(lambda: evaluate(evalset))
    print(f"scoring {N_SEGMENTS:,} x {len(SYSTEMS)} once, {len(report.metrics)} metrics: {seconds:.1f} s "
          "(not part of a slice)")
    print()
    print("| slice | segments | mask (first) | mask | slice + corpus scores | bootstrap, 4 systems x "
          f"{len(report.metrics)} metrics | bootstrap, 2 systems, chrF | total |")
    print("|---|---|---|---|---|---|---|---|")
    for expression in EXPRESSIONS:
        first, _ = timed(lambda: segment_mask(report, expression))
        runs = []
        for _ in range(args.repeat):
            t_mask, mask = timed(lambda: segment_mask(report, expression))
            t_slice, sliced = timed(lambda: (lambda s: (s, s.corpus))(slice_report(report, mask))[0])
            t_all, _ = timed(lambda: significance(sliced, BASELINE, "bs", 1000))
            t_two, _ = timed(lambda: significance(sliced, BASELINE, "bs", 1000, systems=[OTHER], metrics=["chrf"]))
            runs.append((t_mask, t_slice, t_all, t_two, t_mask + t_slice + t_all))
        cells = [f"{min(column):.2f} s ({statistics.median(column):.2f})" for column in zip(*runs)]
        print(f"| `{expression}` | {int(mask.sum()):,} | {first:.2f} s | " + " | ".join(cells) + " |")
    if args.finder:
        print()
        for test in TESTS:
            cpu = time.process_time()
            seconds, table = timed(lambda: find_slices(report, BASELINE, OTHER, "chrf", test=test))
            cpu = time.process_time() - cpu
            print(f"slice finder ({test} test), {BASELINE} vs {OTHER}, chrF, {table.attrs['n']:,} resamples: "
                  f"{table.attrs['tried']:,} slices tried in {seconds:.1f} s, {cpu:.1f} s CPU "
                  f"({table.attrs['significant']:,} significant after Benjamini-Hochberg)")


if __name__ == "__main__":
    main()
