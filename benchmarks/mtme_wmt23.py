"""WMT23 in mt-metrics-eval's layout: mtdiag's meta-evaluation against the figures WMT's metrics task published,
and the time and memory to open a language pair.

The published figures: the system-level Pearson of every WMT23 metric, computed by google-research/mt-metrics-eval
on the official release (MQM system scores, the standard reference, he-en with ``refA`` as a human system) and
published by SapienzaNLP/guardians-mt-eval (``data/metrics_results/wmt_corrs/wmt23/{lp}.txt`` @ 7c74d67, Perrella et
al. 2024) — the statistics of the WMT23 findings (Freitag et al. 2023) recomputed with the same code; the
per-pair system accuracies from the official ``.sys.score`` files (WMT23 pools the three pairs into one accuracy). The
constants below are copied from those files for the metrics whose ``.sys.score`` the development copy has. WMT23 is
held out for the learned judge: nothing is fitted or chosen here, it is only measured.

The segment level cannot be compared: the official per-segment MQM is not in the development copy
(``/work/devdata/mt-metrics-eval/PROVENANCE.md``); the figures on the human scores it has (one rater column of the
triple-rated items, a 2024 side-by-side re-annotation) are printed as they are.

Run: ``python benchmarks/mtme_wmt23.py [--release DIR] [--open zh-en] [--samples 1000]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mtdiag.analysis.metrics_vs_humans import metric_table  # noqa: E402
from mtdiag.io.mtme import LayoutChoice, load_mtme, open_layout  # noqa: E402
from mtdiag.scoring.evaluate import Options, evaluate  # noqa: E402

RELEASE = os.environ.get("MTDIAG_MTME_WMT23", "/work/devdata/mt-metrics-eval/wmt23")
PUBLISHED_PEARSON = {  # system-level Pearson, MQM; NaN where mt-metrics-eval prints 0 for a constant metric
    "en-de": {"GEMBA-MQM-src": 0.9929749, "MetricX-23-refA": 0.9768681, "CometKiwi-src": 0.9455260,
              "BLEU-refA": 0.9165409, "SENTINEL-CAND-MQM-src": 0.9052453, "SENTINEL-CAND-DA-src": 0.8787935,
              "chrF-refA": 0.8657262},
    "zh-en": {"chrF-refA": 0.8091306, "BLEU-refA": 0.7341241, "SENTINEL-CAND-DA-src": 0.4445181,
              "SENTINEL-CAND-MQM-src": 0.4315053},
    "he-en": {"chrF-refB": 0.7758620, "BLEU-refB": 0.7685437, "SENTINEL-CAND-DA-src": 0.0833661,
              "SENTINEL-CAND-MQM-src": -0.0060914},
}
ISSUE_ACCURACY = {"XCOMET-XL-refA": 0.939, "MetricX-23-refA": 0.924, "CometKiwi-src": 0.970, "GEMBA-MQM-src": 1.000,
                  "chrF-refA": 0.818}
"""The issue's orientation figures for en-de system accuracy (their source is not stated)."""
WMT23 = {"en-de": LayoutChoice("en-de", "mqm"), "zh-en": LayoutChoice("zh-en", "mqm"),
         "he-en": LayoutChoice("he-en", "mqm", references=("refB",), include=("refA",))}
"""WMT23's choices (mt-metrics-eval ``meta_info``/``tasks.WMT23``): MQM; he-en's standard reference is refB and its
refA is scored as a human system."""


def system_level(release: str, samples: int) -> None:
    layout = open_layout(release)
    print("system level, MQM (published: mt-metrics-eval on the official release; ours: the same .sys.score files)")
    print(f"{'lp':6} {'metric':24} {'n':>3} {'Pearson':>10} {'published':>10} {'|diff|':>9} {'accuracy':>9} "
          f"{'pairs':>7}")
    for lp, choice in WMT23.items():
        evalset = load_mtme(layout, choice)
        report = evaluate(evalset, Options(metrics=tuple(spec.name for spec in evalset.imported)))
        table = metric_table(report, samples=samples).set_index("metric")
        for metric, row in table.iterrows():
            published = PUBLISHED_PEARSON[lp].get(metric, float("nan"))
            n = int(row["systems"])
            agree = round(row["system_accuracy"] * n * (n - 1) / 2)
            print(f"{lp:6} {metric:24} {n:3d} {row['system_pearson']:10.7f} {published:10.7f} "
                  f"{abs(row['system_pearson'] - published):9.1e} {row['system_accuracy']:9.4f} "
                  f"{agree:3d}/{n * (n - 1) // 2:<3d}")
    print("\nthe issue's en-de system accuracies (source not stated) against the .sys.score definition above:",
          ", ".join(f"{m} {v:.3f}" for m, v in ISSUE_ACCURACY.items()))


def segment_level(release: str, samples: int) -> None:
    layout = open_layout(release)
    print("\nsegment level on the human scores the development copy has (not the official MQM: nothing to compare)")
    for lp, human in (("en-de", "mqm-sxs"), ("zh-en", "mqm-sxs"), ("zh-en", "mqm-col1")):
        evalset = load_mtme(layout, LayoutChoice(lp, human))
        report = evaluate(evalset, Options(metrics=("chrf", "bleu", *(s.name for s in evalset.imported))))
        table = metric_table(report, samples=samples)
        print(f"{lp} {human}: {table.attrs['systems']} systems")
        columns = ["metric", "segment_pearson", "segment_pearson_rank", "within_segment_accuracy", "acc_t",
                   "system_accuracy", "items"]
        print(table[columns].to_string(index=False, float_format=lambda v: f"{v:.4f}"))


def open_time(release: str, lp: str, metrics: str) -> None:
    """Load one pair and score it (CPU and wall seconds, peak memory of this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    evalset = load_mtme(open_layout(release), LayoutChoice(lp))
    loaded = time.perf_counter() - wall, time.process_time() - cpu
    imported = tuple(spec.name for spec in evalset.imported)
    names = None if metrics == "default" else (*metrics.split(","), *imported)
    evaluate(evalset, Options(metrics=names))
    total = time.perf_counter() - wall, time.process_time() - cpu
    print(f"\nopen {lp} of {release}: {evalset.n_segments:,} segments x {len(evalset.systems)} systems, "
          f"{len(imported)} imported metrics ({0 if evalset.scores is None else len(evalset.scores):,} scores); "
          f"read {loaded[1]:.1f} s CPU ({loaded[0]:.1f} s wall); read + scored ({metrics}) {total[1]:.1f} s CPU "
          f"({total[0]:.1f} s wall); peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB; "
          f"load average {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--release", default=RELEASE, help="the wmt23 folder (default: %(default)s)")
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--open", metavar="LP", help="only time opening this pair (no comparison)")
    parser.add_argument("--metrics", default="bleu,chrf,otem,utem,waft,neva,length_ratio",
                        help="the tool's metrics scored when timing --open, or 'default' (default: %(default)s)")
    args = parser.parse_args()
    if not Path(args.release).is_dir():
        sys.exit(f"missing {args.release}: give --release DIR (WMT23 in the mt-metrics-eval layout)")
    if args.open:
        open_time(args.release, args.open, args.metrics)
        return
    system_level(args.release, args.samples)
    segment_level(args.release, args.samples)


if __name__ == "__main__":
    main()
