"""How well the worst-first queue finds what human MQM raters marked worst (issue: triage).

For each WMT21 dev set with MQM scores (``../shared/data/dev/wmt21/{en-de,zh-en}``), over the (system, segment)
pairs that have an MQM score, it prints the **lift at 10 %** (share of the human-worst 10 % found in the worst
10 %, over 0.10; random = 1, perfect = 10; ties counted fractionally, ``mtdiag.triage.lift``) of

- the queue as the user sees it (``mtdiag.triage.worst_first``: the problem score, ties by relative badness),
- each single segment metric,

and, for each flag of ``mtdiag.checks``, its firing rate, the number of rated pairs it fires on, and its lift.
Targets (issue 12): the queue's lift >= 1.1 x the best single metric's on both sets; every flag fires on <= 20 % of
pairs with lift >= 1.0. A third set without human scores (en-ja) shows the firing rates where nothing was tuned.

Usage: ``python benchmarks/triage_vs_human.py [--scores PAIR=FILE ...]`` (Markdown on stdout). ``--scores``
adds metric scores computed elsewhere (COMET, MetricX, …: ``system, seg_id, metric, score``, see docs/inputs.md) to
one set; they join the problem score (``mtdiag.triage.ranking_metrics``) and appear as single metrics, so the
table shows what they add.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEV = REPO.parent / "shared" / "data" / "dev" / "wmt21"
sys.path.insert(0, str(REPO))

from mtdiag import checks, triage  # noqa: E402
from mtdiag.api import evaluate  # noqa: E402
from mtdiag.io import load_folder, with_metric_scores  # noqa: E402
from mtdiag.metrics import metric_info  # noqa: E402


def rated(report, frame, keys=("system", "seg")):
    """``frame`` restricted to the pairs with an MQM score, with the negated score as ``human_bad``."""
    human = report.evalset.human.rename(columns={"score": "mqm"})[["system", "seg", "mqm"]]
    merged = frame.merge(human, on=list(keys), how="inner")
    return merged.assign(human_bad=-merged["mqm"])


def flag_rows(report, rated_pairs=None) -> list[str]:
    """Markdown rows: per flag, its firing rate over all pairs, and (with human scores) over the rated pairs, how
    many rated pairs it fires on and its lift."""
    flags = checks.flag_frame(report)
    lines = []
    for flag in flags.columns:
        rate_all = flags[flag].mean()
        if rated_pairs is None:
            lines.append(f"| {flag} | {rate_all:.1%} |")
            continue
        joined = rated_pairs.join(flags[flag], on=["system", "seg"])
        fired = joined[flag].to_numpy(dtype=bool)
        rate, value = triage.flag_lift(fired, joined["human_bad"].to_numpy())
        shown = "never fires" if not fired.any() else f"{value:.2f}"
        lines.append(f"| {flag} | {rate_all:.1%} | {rate:.1%} | {int(fired.sum())} | {shown} |")
    return lines


def section(pair: str, scores: list[str]) -> str:
    evalset = load_folder(DEV / pair)
    for path in scores:
        evalset = with_metric_scores(evalset, path)
    report = evaluate(evalset)
    if report.evalset.human is None:
        lines = [f"## {pair} (no human scores: firing rates only)", "", "| flag | fires on |", "|---|---|"]
        return "\n".join(lines + flag_rows(report))
    queue = triage.worst_first(report)
    queue = queue.assign(seg=queue["seg_id"] - 1, position=np.arange(len(queue)))
    queue = rated(report, queue)
    ours = triage.lift(-queue["position"], queue["human_bad"])
    singles = []
    for metric in report.metrics:
        info = metric_info(metric, report)
        if info.segment_level and info.has_direction:
            singles.append((metric, triage.lift(-info.oriented(queue[metric]).to_numpy(), queue["human_bad"])))
    best = max(singles, key=lambda item: item[1])
    lines = [f"## {pair}", "",
             f"{len(queue):,} rated pairs ({queue['system'].nunique()} systems × {queue['seg'].nunique()} segments).",
             "", "| ranking | lift at 10 % |", "|---|---|",
             f"| queue (mtdiag.triage: {', '.join(triage.ranking_metrics(report))} percentiles) | {ours:.2f} |"]
    lines += [f"| {metric} | {value:.2f} |" for metric, value in singles]
    ratio = ours / best[1]
    lines += ["", f"Best single metric: {best[0]} ({best[1]:.2f}); queue / best = **{ratio:.2f}×** "
                  f"(target ≥ 1.10×: {'met' if ratio >= 1.1 else 'not met'}).", "",
              "| flag (mtdiag.checks) | fires on (all pairs) | fires on (rated) | rated pairs flagged | lift |",
              "|---|---|---|---|---|"]
    lines += flag_rows(report, queue[["system", "seg", "human_bad"]])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scores", action="append", default=[], metavar="PAIR=FILE",
                        help="metric scores computed elsewhere for one dev set, e.g. zh-en=comet.tsv (repeatable)")
    args = parser.parse_args(argv)
    extra: dict[str, list[str]] = {}
    for item in args.scores:
        pair, _, path = item.partition("=")
        extra.setdefault(pair, []).append(path)
    print("# Triage against human MQM judgements (WMT21)\n")
    for pair in ("en-de", "zh-en", "en-ja"):
        print(section(pair, extra.get(pair, [])) + "\n", flush=True)


if __name__ == "__main__":
    main()
