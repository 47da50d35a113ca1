"""The Buckets page: every metric per bucket of one dimension, and two systems compared bucket by bucket (the
bucketing and the scores are :mod:`mtdiag.analysis.segment_groups`')."""

from __future__ import annotations

import pandas as pd

from mtdiag.analysis.segment_groups import bucket_scores, bucket_significance, bucketing, describe, dimensions
from mtdiag.analysis.significance import DEFAULT_SEED
from mtdiag.metrics import metric_info
from mtdiag.views.base import (TEST_METHODS, Chart, Table, View, ViewOption, first_metric, other_system,
                               systems)

__all__ = ["chart_metrics", "bucket_table", "bucket_comparison", "describe", "dimensions"]


def chart_metrics(report) -> list[str]:
    """The metrics a bucket chart and a two-system comparison can use: those with a better direction."""
    return [m for m in report.metrics if metric_info(m, report).has_direction]


def bucket_table(report, by: str) -> pd.DataFrame:
    """Every metric per bucket of dimension ``by`` and system; ``ValueError`` when the data lacks the dimension.

    The scores are :func:`mtdiag.analysis.segment_groups.bucket_scores`': the corpus formula on each bucket's summed
    statistics."""
    return bucket_scores(report, bucketing(report, by))


def bucket_comparison(report, by: str, a: str, b: str, method: str, metric: str) -> pd.DataFrame:
    """Systems ``a`` and ``b`` on ``metric`` inside every bucket of ``by``, with the paired test.

    The test: ``method`` ``bs``/``ar``, default samples and seed
    (:func:`mtdiag.analysis.segment_groups.bucket_significance`)."""
    return bucket_significance(report, bucketing(report, by), a, b, method, None, DEFAULT_SEED, [metric])


# ----------------------------------------------------------------------------------------------- the view


def _chart(report, chosen):
    from mtdiag.views.charts import bucket_bars

    return bucket_bars(bucket_table(report, chosen["by"]), chosen["metric"], within=report)


def _comparison_caption(report, chosen, frame) -> str:
    return (f"{metric_info(chosen['metric'], report).arrow_label} of A and B in each bucket; better: +1 A is better, "
            "-1 B is better (p < 0.05 marks it significant).")


VIEW = View(
    name="buckets", title="Buckets",
    help="every metric per group of segments (lengths, rare words, labels, human-score bands, error categories), "
         "and two systems compared bucket by bucket",
    about="Where does each system do well or badly? Segments grouped along one dimension; every metric is computed "
          "by its corpus formula inside each group (statistics summed, not segment scores averaged), as compare-mt "
          "does.",
    options=(
        ViewOption("by", "Group segments by", "the dimension the segments are grouped along",
                   choices=lambda report, chosen: dimensions(report), describe=describe),
        ViewOption("metric", "Metric for the chart", "the metric drawn and compared bucket by bucket",
                   choices=lambda report, chosen: chart_metrics(report), of="metric",
                   default=first_metric(lambda report, chosen: chart_metrics(report)),
                   empty="No metric with a better direction was computed for this data."),
        ViewOption("a", "System A", choices=systems, needs=("two_systems",)),
        ViewOption("b", "System B", choices=other_system("a"), needs=("two_systems",)),
        ViewOption("method", "Test", "the paired test inside each bucket", choices=tuple(TEST_METHODS),
                   describe=TEST_METHODS, needs=("two_systems",)),
    ),
    tables=(
        Table("buckets", "Every metric per bucket", lambda report, chosen: bucket_table(report, chosen["by"]),
              uses=("by",)),
        Table("comparison", "Two systems, bucket by bucket",
              lambda report, chosen: bucket_comparison(report, chosen["by"], chosen["a"], chosen["b"],
                                                       chosen["method"], chosen["metric"]),
              needs=("two_systems",), uses=("by", "a", "b", "method", "metric"), caption=_comparison_caption),
    ),
    charts=(Chart("bucket_bars", "The metric per bucket", _chart, uses=("by", "metric")),),
)
