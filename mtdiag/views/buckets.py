"""The Buckets page: every metric per bucket of one dimension, and two systems compared bucket by bucket (the
bucketing and the scores are :mod:`mtdiag.buckets`')."""

from __future__ import annotations

import pandas as pd

from mtdiag.buckets import bucket_scores, bucket_significance, bucketing, describe, dimensions
from mtdiag.compare import DEFAULT_SEED
from mtdiag.metrics import metric_info

__all__ = ["chart_metrics", "bucket_table", "bucket_comparison", "describe", "dimensions"]


def chart_metrics(report) -> list[str]:
    """The metrics a bucket chart and a two-system comparison can use: those with a better direction."""
    return [m for m in report.metrics if metric_info(m, report).has_direction]


def bucket_table(report, by: str) -> pd.DataFrame:
    """Every metric per bucket of dimension ``by`` and system (:func:`mtdiag.buckets.bucket_scores`: corpus formula
    on each bucket's summed statistics); ``ValueError`` when the data lacks the dimension."""
    return bucket_scores(report, bucketing(report, by))


def bucket_comparison(report, by: str, a: str, b: str, method: str, metric: str) -> pd.DataFrame:
    """Systems ``a`` and ``b`` on ``metric`` inside every bucket of ``by``, with the paired test (``method``
    ``bs``/``ar``, default samples and seed: :func:`mtdiag.buckets.bucket_significance`)."""
    return bucket_significance(report, bucketing(report, by), a, b, method, None, DEFAULT_SEED, [metric])
