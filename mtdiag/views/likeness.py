"""The Human likeness & human scores page: ORANGE/KING per metric and QUEEN per system (:mod:`mtdiag.likeness`),
the agreement of every metric with the human scores and the human ranking (:mod:`mtdiag.human`), and what the
metric-vs-human scatter plots draw (:func:`human_points`), and when error annotations are loaded the error
statistics per category, per rater and the significance between systems per category (:mod:`mtdiag.errorstats`:
:func:`error_counts`, :func:`error_raters`, :func:`error_significance`)."""

from __future__ import annotations

import pandas as pd

from mtdiag.human import human_agreement, human_ranking
from mtdiag.likeness import DEFAULT_QUEEN_METRICS, likeness_metrics, plain_words, report_orange_king, report_queen

__all__ = ["DEFAULT_QUEEN_METRICS", "error_counts", "error_raters", "error_significance", "has_error_annotations",
           "has_human_scores", "human_points", "human_agreement", "human_ranking",
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


def has_error_annotations(report) -> bool:
    """True when the data has human error annotations (MQM/ESA) with at least one error of a loaded system."""
    from mtdiag.errorstats import has_annotations

    return has_annotations(report.evalset)


def error_counts(report, level: str = "full") -> pd.DataFrame:
    """Errors per system × category (``level``: ``full`` or ``top``), per 100 rated segments and per severity
    (:func:`mtdiag.errorstats.category_counts`)."""
    from mtdiag.errorstats import category_counts

    return category_counts(report.evalset, level)


def error_raters(report) -> pd.DataFrame:
    """Per rater × system: rated segments, errors, errors per 100 segments, mean MQM score
    (:func:`mtdiag.errorstats.rater_table`)."""
    from mtdiag.errorstats import rater_table

    return rater_table(report.evalset)


def error_significance(report, level: str = "top") -> pd.DataFrame:
    """Every pair of systems per error category: the exact paired permutation test of the per-segment error count,
    Holm-corrected (:func:`mtdiag.errorstats.category_significance`)."""
    from mtdiag.errorstats import category_significance

    return category_significance(report.evalset, level)
