"""The worst-first queue: which (system, segment) pairs a translator should look at first, and how well that order
finds what human raters marked worst (``docs/triage.md``).

**Problem score** (``problem``, 0–1, higher = worse): the geometric mean — the rank product of Breitling et al.
2004 — over three complementary views of an output, of its *badness percentile* among all pairs of the report
(``rank(method="average", pct=True)`` of the oriented score, so 1 is the worst pair of this test set and ties
share their rank; the smallest percentile is 1/n, never 0):

- **TER** — word edits, including moved blocks (Snover et al. 2006): adequacy and word order;
- **chrF** — character n-gram F-score (Popović 2015): adequacy robust to inflection and segmentation;
- **OTEM** — over-translation (Yang et al. 2018): repeated n-grams, the signature of a hallucination loop.

Imported metrics (scores computed elsewhere, ``--scores``: COMET, MetricX, …) join the product as further views.

Why a geometric mean: a pair is a problem when the views *agree* it is bad; one view calling it fine (a low
percentile) pulls it down more than in an arithmetic mean. Of four standard aggregations of the same three
percentiles compared on both dev sets (arithmetic, geometric, quadratic mean, maximum), the geometric mean found
the most human-worst outputs on both (lift at 10 %: en-de 1.89 against 1.80 arithmetic, zh-en 2.48 against 2.24;
``docs/triage.md``).

Percentiles are calibrated on the test set being looked at, never on a dev set, so the score means the same on
any set. A metric missing from the report is left out; without any of the three, every segment-level
metric with a direction is used. Ties are broken by the pair's badness *relative to the other systems on the same
source* (its problem minus the source's mean problem over systems): of two equally bad outputs, the one whose
peers did better on that source comes first — a system-specific failure before a hard source.

Why these three, measured on both WMT21 dev sets with MQM (``benchmarks/triage_vs_human.py``): averaging all
seven metrics is worse than these three on both sets (UTEM, WAFT, NEVA and BLEU repeat what TER and chrF say and
dilute OTEM's rare but strong signal), and ranking by badness relative to the source alone finds far fewer of the
human-worst outputs than absolute badness (raters penalise hard sources too).

**Lift at 10 %** (:func:`lift`): the share of the human-worst 10 % of pairs found among the ranking's worst 10 %,
divided by 0.10 (random = 1, perfect = 10). Ties at either cut-off count fractionally (each tied pair gets an equal
share of the remaining places): the expected overlap under random tie-breaking, deterministic.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from mtdiag import checks
from mtdiag.metrics import metric_info

VIEWS = ("ter", "chrf", "otem")
SHARE = 0.10


def badness_percentile(values: pd.Series, metric: str, within=None) -> pd.Series:
    """0–1 per row, 1 = the worst row of this set for ``metric`` (direction-aware; ties averaged; NaN kept; an
    imported metric's direction from ``within``, the report)."""
    bad = -metric_info(metric, within).oriented(values)
    return bad.rank(method="average", pct=True, na_option="keep")


def ranking_metrics(report) -> list[str]:
    """The metrics the problem score averages: :data:`VIEWS` present in the report plus every imported metric
    with a direction (COMET, MetricX, … computed elsewhere: trained on human judgements, they are views of their
    own), else every segment-level metric with a direction."""
    imported = {info.name for info in report.evalset.imported}
    chosen = [m for m in report.metrics if (m in VIEWS or m in imported) and metric_info(m, report).has_direction]
    if chosen:
        return chosen
    return [m for m in report.metrics if metric_info(m, report).segment_level and metric_info(m, report).has_direction]


def problem_scores(report, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Per (system, seg): ``problem`` (geometric mean of the badness percentiles, 0–1) and ``relative`` (the pair's problem minus the
    mean problem of all systems on the same source: > 0 means worse than its peers there). Index as
    ``report.segments``."""
    metrics = list(metrics or ranking_metrics(report))
    segments = report.segments
    if not metrics:
        zero = pd.Series(0.0, index=segments.index)
        return pd.DataFrame({"problem": zero, "relative": zero})
    percentiles = pd.concat([badness_percentile(segments[m], m, report) for m in metrics], axis=1)
    problem = np.exp(np.log(percentiles).mean(axis=1, skipna=True)).fillna(0.0)
    relative = problem - problem.groupby(level="seg").transform("mean")
    return pd.DataFrame({"problem": problem, "relative": relative})


def worst_first(report, metrics: Sequence[str] | None = None,
                mt_only: Mapping[str, Iterable[int]] | None = None) -> pd.DataFrame:
    """Every (system, segment) pair worst first: ``system, seg_id`` (1-based), ``problem``, ``relative``, ``flags``
    (the fired checks of :mod:`mtdiag.checks`, comma-joined, empty when none), every segment score, then one
    boolean column per check. ``mt_only`` (optional): per system, the segments whose output has an MT-only n-gram
    (adds the ``mt_only_ngram`` flag). Order: problem descending, then relative descending, then system and
    segment order. The flags explain a pair; they do not move it in the queue (adding them to the problem score
    changed the lift by less than its noise on the dev sets, see ``docs/triage.md``)."""
    scores = problem_scores(report, metrics)
    flags = checks.flag_frame(report)
    if mt_only is not None:
        pairs = {(s, int(g)) for s, segs in mt_only.items() for g in segs}
        flags = flags.assign(mt_only_ngram=[pair in pairs for pair in flags.index])
    scores["flags"] = checks.flag_names(flags)
    table = pd.concat([scores, report.segments, flags], axis=1).reset_index()
    order = {s: i for i, s in enumerate(report.evalset.systems)}
    table["_sys"] = table["system"].map(order)
    table = table.sort_values(["problem", "relative", "_sys", "seg"], ascending=[False, False, True, True],
                              kind="stable", ignore_index=True)
    table.insert(1, "seg_id", table.pop("seg") + 1)
    return table.drop(columns="_sys")


def source_difficulty(report, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """The queue viewed as sources: per segment ``seg_id``, ``difficulty`` (mean problem over systems: a hard
    source), ``spread`` (max − min problem over systems: the systems disagree), ``worst_system`` and its
    ``worst_problem``; hardest first."""
    scores = problem_scores(report, metrics)["problem"].unstack("system")
    worst = scores.idxmax(axis=1)
    frame = pd.DataFrame({"seg_id": scores.index + 1, "difficulty": scores.mean(axis=1).to_numpy(),
                          "spread": (scores.max(axis=1) - scores.min(axis=1)).to_numpy(),
                          "worst_system": worst.to_numpy(), "worst_problem": scores.max(axis=1).to_numpy()})
    return frame.sort_values(["difficulty", "spread", "seg_id"], ascending=[False, False, True], ignore_index=True)


def top_weights(badness: np.ndarray, share: float = SHARE) -> np.ndarray:
    """Membership of each item in the worst ``share`` (highest badness): 1 above the cut-off, 0 below, and the
    remaining places shared equally by the items tied at the cut-off."""
    badness = np.asarray(badness, dtype=float)
    k = share * len(badness)
    if len(badness) == 0 or k <= 0:
        return np.zeros(len(badness))
    threshold = np.sort(badness)[::-1][int(np.ceil(k)) - 1]
    above, tied = badness > threshold, badness == threshold
    weights = above.astype(float)
    weights[tied] = (k - above.sum()) / tied.sum()
    return weights


def lift(badness: np.ndarray, human_badness: np.ndarray, share: float = SHARE) -> float:
    """Share of the human-worst ``share`` found in the ranking's worst ``share``, over ``share`` (random = 1)."""
    ours, theirs = top_weights(badness, share), top_weights(human_badness, share)
    return float((ours * theirs).sum() / theirs.sum() / share)


def flag_lift(flag: np.ndarray, human_badness: np.ndarray, share: float = SHARE) -> tuple[float, float]:
    """(firing rate, lift) of a boolean flag: the share of flagged pairs in the human-worst ``share``, over
    ``share`` (NaN when it never fires)."""
    flag = np.asarray(flag, dtype=bool)
    theirs = top_weights(human_badness, share)
    rate = float(flag.mean()) if len(flag) else 0.0
    return rate, float(theirs[flag].sum() / flag.sum() / share) if flag.any() else float("nan")
