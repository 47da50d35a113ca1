"""The Slice finder page: where do two systems differ most? The candidates, their test and the correction are
:func:`mtdiag.slices.find_slices`' (``docs/slices.md``); this view picks what the page offers."""

from __future__ import annotations

import pandas as pd

from mtdiag.metrics import metric_info
from mtdiag.slices import CORRECTIONS, find_slices
from mtdiag.slices.finder import DEFAULT_CORRECTION, DEFAULT_MIN_SIZE, DEFAULT_TEST, TESTS
from mtdiag.views.base import Table, View, ViewOption, first_metric, other_system, systems

__all__ = ["CORRECTIONS", "DEFAULT_MIN_SIZE", "TESTS", "finder_metrics", "found_slices", "within"]


def finder_metrics(report) -> list[str]:
    """The metrics two systems can be compared by on a slice: computed here from per-segment statistics (the corpus
    formula on a slice's summed statistics; imported scores have none) and with a better direction."""
    return [m for m in report.metrics if m in report.metric_objects and metric_info(m, report).has_direction]


def found_slices(report, a: str, b: str, metric: str, min_size: int, correction: str,
                 test: str = DEFAULT_TEST) -> pd.DataFrame:
    """The candidate slices ranked by ``test`` (:func:`mtdiag.slices.find_slices`: by default how far the gap
    between ``a`` and ``b`` departs from the rest of the set; enough bootstrap resamples for the number of slices
    tried, the default seed): ``expression``, ``size``, both scores, ``difference``, ``rest_difference``,
    ``departure``, ``direction``, the p-value and the corrected p-value; ``attrs`` as find_slices gives them."""
    return find_slices(report, a, b, metric, min_size=min_size, correction=correction, test=test)


RANKED = {"departure": "Largest departure from the rest of the set first among the significant, then the others; "
                        "'direction' says which way",
          "gap": "Largest difference first among the significant, then the others"}
"""How the table is ordered, per test (the page's caption)."""


def within(where: str, expression: str) -> str:
    """The expression that selects ``expression``'s segments inside the slice ``where`` (a slice found on a slice
    is the intersection of both; the whole set's when ``where`` is empty)."""
    return f"({where}) and ({expression})" if where else expression


# ----------------------------------------------------------------------------------------------- the view


def min_size(report) -> int:
    """The smallest slice tried by default: :data:`DEFAULT_MIN_SIZE` segments, at most a quarter of the set."""
    return min(DEFAULT_MIN_SIZE, max(1, report.evalset.n_segments // 4))


VIEW = View(
    name="slices", title="Slice finder",
    help="where the gap between two systems is unusual: candidate slices ranked by how far the gap there departs "
         "from the gap on the rest of the set, each the expression that defines it and which way it departs, with "
         "paired p-values corrected for the slices tried",
    needs=("two_systems",),
    options=(
        ViewOption("a", "System A", choices=systems),
        ViewOption("b", "System B", choices=other_system("a")),
        ViewOption("metric", "Metric", choices=lambda report, chosen: finder_metrics(report), of="metric",
                   default=first_metric(lambda report, chosen: finder_metrics(report)),
                   empty="No metric computed here has per-segment statistics to compare two systems on a slice."),
        ViewOption("min_size", "Minimum size", "a slice is tried when it keeps at least this many segments (and "
                   "not all)", type=int, default=lambda report, chosen: min_size(report), minimum=1,
                   maximum=lambda report: max(1, report.evalset.n_segments)),
        ViewOption("correction", "Correction", "the correction for the number of slices tried",
                   choices=tuple(CORRECTIONS), default=DEFAULT_CORRECTION, describe=CORRECTIONS),
        ViewOption("test", "Test", "departure: is the gap A − B here unlike the gap on the rest of the set (where B "
                   "catches up, wins or falls further behind)? gap: is A − B ≠ 0 here?", choices=tuple(TESTS),
                   default=DEFAULT_TEST, describe=TESTS),
    ),
    tables=(Table("slices", "Slices where the gap is unusual", lambda report, chosen: found_slices(
        report, chosen["a"], chosen["b"], chosen["metric"], chosen["min_size"], chosen["correction"],
        chosen["test"])),),
    in_report=False,
)
