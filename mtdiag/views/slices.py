"""The Slice finder page: where do two systems differ most? The candidates, their test and the correction are
:func:`mtdiag.slices.find_slices`' (``docs/slices.md``); this view picks what the page offers."""

from __future__ import annotations

import pandas as pd

from mtdiag.metrics import metric_info
from mtdiag.slices import CORRECTIONS, find_slices
from mtdiag.slices.finder import DEFAULT_MIN_SIZE

__all__ = ["CORRECTIONS", "DEFAULT_MIN_SIZE", "finder_metrics", "found_slices", "within"]


def finder_metrics(report) -> list[str]:
    """The metrics two systems can be compared by on a slice: computed here from per-segment statistics (the corpus
    formula on a slice's summed statistics; imported scores have none) and with a better direction."""
    return [m for m in report.metrics if m in report.metric_objects and metric_info(m, report).has_direction]


def found_slices(report, a: str, b: str, metric: str, min_size: int, correction: str) -> pd.DataFrame:
    """The candidate slices ranked by how much ``a`` and ``b`` differ there (:func:`mtdiag.slices.find_slices`,
    1,000 bootstrap resamples, the default seed): ``expression``, ``size``, both scores, ``difference``, the
    p-value and the corrected p-value; ``attrs`` as find_slices gives them."""
    return find_slices(report, a, b, metric, min_size=min_size, correction=correction)


def within(where: str, expression: str) -> str:
    """The expression that selects ``expression``'s segments inside the slice ``where`` (a slice found on a slice
    is the intersection of both; the whole set's when ``where`` is empty)."""
    return f"({where}) and ({expression})" if where else expression
