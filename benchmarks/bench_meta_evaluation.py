"""Benchmark: the meta-evaluation statistics (``mtdiag.analysis.metrics_vs_humans.metric_table``: five statistics of
every metric, 1,000 bootstrap resamples of the source segments, WMT-style clusters) against a peer written the
usual way — a Python loop over segments and pairs of systems per statistic, and one more pass per resample — on a
WMT23 zh-en pair in mt-metrics-eval's layout (15 systems, 1,976 segments, the human scores of one MQM rater column).

CPU seconds (``time.process_time``), not wall time: the machine is shared. The peer's bootstrap is timed on
``--peer-resamples`` resamples and scaled to 1,000 (its cost is linear in them).

Run: ``python benchmarks/bench_meta_evaluation.py [--release DIR] [--lp zh-en] [--human mqm-col1]``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mtdiag.analysis import metrics_vs_humans as mvh  # noqa: E402
from mtdiag.analysis.meta_statistics import resample_weights  # noqa: E402
from mtdiag.io.mtme import LayoutChoice, load_mtme, open_layout  # noqa: E402
from mtdiag.scoring.evaluate import Options, evaluate  # noqa: E402

RELEASE = os.environ.get("MTDIAG_MTME_WMT23", "/work/devdata/mt-metrics-eval/wmt23")


def peer_statistics(human: np.ndarray, scores: np.ndarray, segments: np.ndarray) -> tuple[float, float]:
    """Segment Pearson and within-segment accuracy of one metric on ``segments`` (with repeats), by loops."""
    h, m, per_segment = [], [], []
    systems = range(human.shape[0])
    for i in segments:
        for s in systems:
            if np.isfinite(human[s, i]) and np.isfinite(scores[s, i]):
                h.append(human[s, i])
                m.append(scores[s, i])
        credit = pairs = 0
        for a, b in itertools.combinations(systems, 2):
            values = (human[a, i], human[b, i], scores[a, i], scores[b, i])
            if not all(np.isfinite(values)) or values[0] == values[1]:
                continue
            pairs += 1
            credit += 0.5 if values[2] == values[3] else float((values[0] > values[1]) == (values[2] > values[3]))
        if pairs:
            per_segment.append(credit / pairs)
    return float(np.corrcoef(h, m)[0, 1]), float(np.mean(per_segment))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--release", default=RELEASE)
    parser.add_argument("--lp", default="zh-en")
    parser.add_argument("--human", default="mqm-col1")
    parser.add_argument("--peer-resamples", type=int, default=3)
    args = parser.parse_args()
    if not Path(args.release).is_dir():
        sys.exit(f"missing {args.release}: give --release DIR (a year of WMT in the mt-metrics-eval layout)")
    evalset = load_mtme(open_layout(args.release), LayoutChoice(args.lp, args.human))
    report = evaluate(evalset, Options(metrics=tuple(spec.name for spec in evalset.imported)))
    ev = mvh.evidence(report)
    start = time.process_time()
    table = mvh.metric_table(report, samples=1000)
    ours = time.process_time() - start
    start = time.process_time()
    whole = np.arange(evalset.n_segments)
    peer = {metric: peer_statistics(ev.human, ev.scores[j], whole) for j, metric in enumerate(ev.metrics)}
    peer_point = time.process_time() - start
    weights = resample_weights(evalset.n_segments, args.peer_resamples, 1)
    start = time.process_time()
    for row in weights:
        drawn = np.repeat(whole, row.astype(int))
        for j in range(len(ev.metrics)):
            peer_statistics(ev.human, ev.scores[j], drawn)
    peer_resample = (time.process_time() - start) / args.peer_resamples
    point = table.set_index("metric")
    worst = max(abs(point.at[m, "segment_pearson"] - p[0]) + abs(point.at[m, "within_segment_accuracy"] - p[1])
                for m, p in peer.items())
    print(f"{args.lp} ({args.human}): {len(ev.systems)} systems x {evalset.n_segments:,} segments, "
          f"{len(ev.metrics)} metrics, {int(point['items'].max()):,} rated items")
    print(f"mtdiag, five statistics + 1,000 resamples + clusters: {ours:.2f} s CPU")
    print(f"loop peer, two statistics, whole set: {peer_point:.2f} s CPU; per resample {peer_resample:.2f} s -> "
          f"1,000 resamples ~{peer_point + 1000 * peer_resample:,.0f} s CPU "
          f"({(peer_point + 1000 * peer_resample) / ours:,.0f}x mtdiag)")
    print(f"largest difference between the two on the whole set: {worst:.1e}")


if __name__ == "__main__":
    main()
