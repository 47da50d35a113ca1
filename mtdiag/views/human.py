"""The Human likeness & human scores page: ORANGE/KING per metric and QUEEN per system (:mod:`mtdiag.likeness`),
the agreement of every metric with the human scores and the human ranking (:mod:`mtdiag.human`), and what the
metric-vs-human scatter plots draw (:func:`human_points`)."""

from __future__ import annotations

import pandas as pd

from mtdiag.human import human_agreement, human_ranking
from mtdiag.likeness import DEFAULT_QUEEN_METRICS, likeness_metrics, plain_words, report_orange_king, report_queen

__all__ = ["DEFAULT_QUEEN_METRICS", "has_human_scores", "human_points", "human_agreement", "human_ranking",
           "plain_words", "report_orange_king", "report_queen", "similarity_metrics"]  # the analyses' tables


def similarity_metrics(report) -> list[str]:
    """The report's metrics ORANGE, KING and QUEEN can score references with
    (:func:`mtdiag.likeness.likeness_metrics`), the terminology scores left out."""
    allowed = likeness_metrics(report.evalset)
    return [m for m in report.metrics if m in allowed and not m.startswith("term_")]


def has_human_scores(report) -> bool:
    """True when the data has human scores for at least one of the report's systems."""
    human = report.evalset.human
    return human is not None and len(human) > 0 and bool(human["system"].isin(report.evalset.systems).any())


def human_points(report, metric: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What the metric-vs-human scatter plots draw: per rated (system, segment) ``system, seg, human, <metric>``,
    and per system ``system, human`` (mean over its rated segments) and ``<metric>`` (its corpus score)."""
    from mtdiag.human import rated_segments

    segments = rated_segments(report, report.evalset.human)[["human", metric]].reset_index()
    means = segments.groupby("system", sort=False)["human"].mean()
    systems = pd.DataFrame({"system": means.index, "human": means.to_numpy(),
                            metric: report.corpus[metric].reindex(means.index).to_numpy()})
    return segments, systems
