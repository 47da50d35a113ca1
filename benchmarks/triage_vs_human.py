"""How well the worst-first queue finds what human MQM raters marked worst (issue: triage).

For each WMT21 dev set with MQM scores (``../shared/data/dev/wmt21/{en-de,zh-en}``), over the (system, segment)
pairs that have an MQM score, it prints the **lift at 10 %** (share of the human-worst 10 % found in the worst
10 %, over 0.10; random = 1, perfect = 10; ties counted fractionally, ``mtdiag.triage.lift``) of

- the queue as the user sees it (``mtdiag.triage.worst_first``: the problem score, ties by relative badness),
- the previous ranking (``mtdiag.diagnose.segment_table``'s problem: mean rank of every metric and flag),
- each single segment metric,

and, for each flag of ``diagnose.segment_table``, its firing rate and lift. Target (issue 12): the queue's lift
>= 1.1 x the best single metric's on both sets.

Usage: ``python benchmarks/triage_vs_human.py`` (Markdown on stdout).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEV = REPO.parent / "shared" / "data" / "dev" / "wmt21"
sys.path.insert(0, str(REPO))

from mtdiag import diagnose, triage  # noqa: E402
from mtdiag.api import evaluate  # noqa: E402
from mtdiag.io import load_folder  # noqa: E402
from mtdiag.metrics import metric_info  # noqa: E402


def rated(report, frame, keys=("system", "seg")):
    """``frame`` restricted to the pairs with an MQM score, with the negated score as ``human_bad``."""
    human = report.evalset.human.rename(columns={"score": "mqm"})[["system", "seg", "mqm"]]
    merged = frame.merge(human, on=list(keys), how="inner")
    return merged.assign(human_bad=-merged["mqm"])


def section(pair: str) -> str:
    report = evaluate(load_folder(DEV / pair))
    queue = triage.worst_first(report)
    queue = queue.assign(seg=queue["seg_id"] - 1, position=np.arange(len(queue)))
    queue = rated(report, queue)
    rows = [("queue (mtdiag.triage: TER, chrF, OTEM percentiles)", triage.lift(-queue["position"], queue["human_bad"]))]
    old = diagnose.segment_table(report).assign(position=lambda t: np.arange(len(t)))
    old = rated(report, old)
    rows.append(("previous ranking (diagnose.segment_table)", triage.lift(-old["position"], old["human_bad"])))
    singles = []
    for metric in report.metrics:
        info = metric_info(metric)
        if info.segment_level and info.has_direction:
            singles.append((metric, triage.lift(-info.oriented(queue[metric]).to_numpy(), queue["human_bad"])))
    best = max(singles, key=lambda item: item[1])
    lines = [f"## {pair}", "",
             f"{len(queue):,} rated pairs ({queue['system'].nunique()} systems × {queue['seg'].nunique()} segments).",
             "", "| ranking | lift at 10 % |", "|---|---|"]
    lines += [f"| {name} | {value:.2f} |" for name, value in rows]
    lines += [f"| {metric} | {value:.2f} |" for metric, value in singles]
    ratio = rows[0][1] / best[1]
    lines += ["", f"Best single metric: {best[0]} ({best[1]:.2f}); queue / best = **{ratio:.2f}×** "
                  f"(target ≥ 1.10×: {'met' if ratio >= 1.1 else 'not met'}).", "",
              "| flag (diagnose.segment_table) | fires on | lift |", "|---|---|---|"]
    for flag in diagnose.flag_columns(old):
        rate, value = triage.flag_lift(old[flag].to_numpy(), old["human_bad"].to_numpy())
        lines.append(f"| {flag} | {rate:.1%} | {value:.2f} |")
    return "\n".join(lines)


def main() -> None:
    print("# Triage against human MQM judgements (WMT21)\n")
    for pair in ("en-de", "zh-en"):
        print(section(pair) + "\n", flush=True)


if __name__ == "__main__":
    main()
