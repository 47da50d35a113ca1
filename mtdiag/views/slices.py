"""The Slice finder page: where do two systems differ most? The candidates, their test and the correction are
:func:`mtdiag.slices.find_slices`' (``docs/slices.md``); this view picks what the page offers."""

from __future__ import annotations

import pandas as pd

from mtdiag.metrics import metric_info
from mtdiag.slices import CORRECTIONS, find_slices
from mtdiag.significance import DEFAULT_SEED
from mtdiag.slices.finder import DEFAULT_CORRECTION, DEFAULT_MIN_SIZE
from mtdiag.views.base import Table, View, ViewOption, first_metric, other_system, systems

__all__ = ["CORRECTIONS", "DEFAULT_MIN_SIZE", "finder_metrics", "found_slices"]


def finder_metrics(report) -> list[str]:
    """The metrics two systems can be compared by on a slice: computed here from per-segment statistics (the corpus
    formula on a slice's summed statistics; imported scores have none) and with a better direction."""
    return [m for m in report.metrics if m in report.metric_objects and metric_info(m, report).has_direction]


def found_slices(report, a: str, b: str, metric: str, min_size: int, correction: str, samples: int | None = None,
                 seed: int | None = DEFAULT_SEED) -> pd.DataFrame:
    """The candidate slices ranked by how much ``a`` and ``b`` differ there (:func:`mtdiag.slices.find_slices`:
    ``samples`` bootstrap resamples per slice — None: enough for the number of slices tried — drawn from
    ``seed``): ``expression``, ``size``, both scores, ``difference``, the p-value and the corrected p-value;
    ``attrs`` as find_slices gives them."""
    return find_slices(report, a, b, metric, min_size=min_size, correction=correction, n=samples, seed=seed)


# ----------------------------------------------------------------------------------------------- the view


def min_size(report) -> int:
    """The smallest slice tried by default: :data:`DEFAULT_MIN_SIZE` segments, at most a quarter of the set."""
    return min(DEFAULT_MIN_SIZE, max(1, report.evalset.n_segments // 4))


def _caption(report, chosen, frame) -> str:
    info, a, b = frame.attrs, chosen["a"], chosen["b"]
    label = metric_info(chosen["metric"], report).arrow_label
    return (f"{info['tried']:,} slices tried on {info['segments']:,} segments; {info['significant']:,} significant "
            f"after {CORRECTIONS[chosen['correction']]} (corrected p < 0.05). On all {info['segments']:,} segments: "
            f"{a} {info['score_a']:.2f}, {b} {info['score_b']:.2f} {label}. Largest difference first among the "
            "significant, then the others; score_a is A's, score_b is B's. Each expression, given to --where or the "
            "slice box, selects exactly its segments.")


VIEW = View(
    name="slices", title="Slice finder",
    help="where two systems differ most: candidate slices ranked, each the expression that defines it, with "
         "paired p-values corrected for the slices tried",
    about="Where do two systems differ most? Every bucket, label value, flag, human score band and error category, "
          "and their pairwise intersections, are tried as slices; on each, both systems' corpus scores and the "
          "paired bootstrap p-value, corrected for the number of slices tried. Each slice is the expression that "
          "defines it: open it and every page shows that slice.",
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
        ViewOption("samples", "Resamples", "bootstrap resamples per slice (default: enough for the slices tried, at "
                   "least 1000: max(1000, 2 x slices / 0.05), so that the smallest possible p survives the "
                   "correction)", type=int, minimum=1),
        ViewOption("seed", "Seed", "the random seed of the bootstrap", type=int, default=DEFAULT_SEED),
    ),
    tables=(Table("slices", "Slices where they differ most", lambda report, chosen: found_slices(
        report, chosen["a"], chosen["b"], chosen["metric"], chosen["min_size"], chosen["correction"],
        chosen["samples"], chosen["seed"]),
        caption=_caption, empty="No candidate slice is large enough: lower the minimum size."),),
    in_report=False,
)
