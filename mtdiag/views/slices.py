"""The Slice finder page: where is the gap between two systems unusual? The candidates, their tests and the
correction are :func:`mtdiag.slices.find_slices`' (``docs/slices.md``); this view picks what the page offers."""

from __future__ import annotations

import pandas as pd

from mtdiag.metrics import metric_info
from mtdiag.analysis.significance import DEFAULT_SEED, MAX_SAMPLES
from mtdiag.slices import CORRECTIONS, find_slices
from mtdiag.slices.finder import DEFAULT_CORRECTION, DEFAULT_MIN_SIZE, DEFAULT_TEST, TESTS
from mtdiag.views.base import Table, View, ViewOption, first_metric, other_system, systems

__all__ = ["CORRECTIONS", "DEFAULT_MIN_SIZE", "TESTS", "finder_metrics", "found_slices"]


def finder_metrics(report) -> list[str]:
    """The metrics two systems can be compared by on a slice.

    Those computed here from per-segment statistics (the corpus formula on a slice's summed statistics; imported
    scores have none) and with a better direction."""
    return [m for m in report.metrics if m in report.metric_objects and metric_info(m, report).has_direction]


def found_slices(report, a: str, b: str, metric: str, min_size: int, correction: str, test: str = DEFAULT_TEST,
                 samples: int | None = None, seed: int | None = DEFAULT_SEED, tags=None) -> pd.DataFrame:
    """The candidate slices ranked by ``test`` (:func:`mtdiag.slices.find_slices`), with their scores and p-values.

    ``test`` by default: how far the gap between ``a`` and ``b`` departs from the rest of the set; ``samples``:
    bootstrap resamples per slice — None: enough for the number of slices tried — drawn from ``seed``; ``tags``: the
    user's, each tried as a slice. Columns: ``expression``, ``size``, both scores, ``difference``, ``rest_difference``,
    ``departure``, ``direction``, the p-value and the corrected p-value; ``attrs`` as find_slices gives them."""
    return find_slices(report, a, b, metric, min_size=min_size, correction=correction, test=test, n=samples,
                       seed=seed, tags=tags)


RANKED = {"departure": "Largest departure from the rest of the set first among the significant, then the others; "
                        "'direction' says which way",
          "gap": "Largest difference first among the significant, then the others"}
"""How the table is ordered, per test (the table's caption)."""


# ----------------------------------------------------------------------------------------------- the view


def min_size(report) -> int:
    """The smallest slice tried by default: :data:`DEFAULT_MIN_SIZE` segments, at most a quarter of the set."""
    return min(DEFAULT_MIN_SIZE, max(1, report.evalset.n_segments // 4))


def _caption(report, chosen, frame) -> str:
    info, a, b = frame.attrs, chosen["a"], chosen["b"]
    label = metric_info(chosen["metric"], report).arrow_label
    return (f"{info['tried']:,} slices tried on {info['segments']:,} segments; {info['significant']:,} significant "
            f"after {CORRECTIONS[chosen['correction']]} (corrected p < 0.05). On all {info['segments']:,} segments: "
            f"{a} {info['score_a']:.2f}, {b} {info['score_b']:.2f} {label}. {RANKED[chosen['test']]}; score_a is "
            "A's, score_b is B's, rest_difference the gap on the other segments. Each expression, given to --where "
            "or the slice box, selects exactly its segments.")


VIEW = View(
    name="slices", title="Slice finder",
    help="where the gap between two systems is unusual: candidate slices ranked by how far the gap there departs "
         "from the gap on the rest of the set, each the expression that defines it and which way it departs, with "
         "paired p-values corrected for the slices tried",
    about="Where is the gap between two systems unusual: where does B catch up, win, or fall further behind? Every "
          "bucket, label value, flag, human score band and error category, and their pairwise intersections, are "
          "tried as slices; on each, both systems' corpus scores there and on the rest of the set, and the paired "
          "bootstrap p-value of the chosen test, corrected for the number of slices tried. Each slice is the "
          "expression that defines it: open it and every page shows that slice.",
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
        ViewOption("samples", "Resamples", "bootstrap resamples per slice (default: enough for the slices tried, at "
                   "least 1000: max(1000, 2 x slices / 0.05), so that the smallest possible p survives the "
                   f"correction; at most {MAX_SAMPLES:,})", type=int, minimum=1, maximum=MAX_SAMPLES),
        ViewOption("seed", "Seed", "the random seed of the bootstrap", type=int, default=DEFAULT_SEED, minimum=0),
    ),
    tables=(Table("slices", "Slices where the gap is unusual", lambda report, chosen: found_slices(
        report, chosen["a"], chosen["b"], chosen["metric"], chosen["min_size"], chosen["correction"],
        chosen["test"], chosen["samples"], chosen["seed"], chosen["tags"]),
        inputs=("tags",), caption=_caption, empty="No candidate slice is large enough: lower the minimum size."),),
    in_report=False,
)
