"""What a column of a view's frame is, for a surface that draws or writes it: a metric's label, places, direction
and help (:class:`mtdiag.metrics.MetricInfo`, the one source of number formats), a check's label and help (the
flag columns, :data:`mtdiag.triage.checks.REGISTRY`), what the problem score means (:data:`mtdiag.triage.ranking.PROBLEM_TEXT`) and
how a human score reads (:func:`mtdiag.analysis.human_agreement.format_score`).

A page reads these through :mod:`mtdiag.views` (its only door into the core), never the registries themselves.
Metrics imported with a set (COMET, MetricX) are resolved through ``within`` — the report or set that carries them
(:func:`mtdiag.metrics.metric_info`).
"""

from __future__ import annotations

import pandas as pd

from mtdiag.triage import checks
from mtdiag.analysis.human_agreement import SCORE_PLACES, format_score
from mtdiag.metrics import MetricInfo, metric_classes, metric_info
from mtdiag.triage.ranking import PROBLEM_TEXT


def is_metric(column: str, within=None) -> bool:
    """Whether ``column`` names a metric: registered, or imported by ``within``'s data."""
    return column in metric_classes(within)


def is_flag(column: str) -> bool:
    """Whether ``column`` is a check's flag (a registered check)."""
    return column in checks.REGISTRY


def flag_label(name: str) -> str:
    """A check as people read it: its label."""
    return checks.REGISTRY[name].label


def flag_help(name: str) -> str:
    """What a check's flag says."""
    return checks.REGISTRY[name].help


def flag_columns(frame: pd.DataFrame) -> list[str]:
    """The flag columns of ``frame``, in the registry's order (:func:`mtdiag.triage.checks.flag_columns`)."""
    return checks.flag_columns(frame)


__all__ = ["PROBLEM_TEXT", "SCORE_PLACES", "MetricInfo", "format_score", "flag_columns", "flag_help", "flag_label", "is_flag", "is_metric",
           "metric_info"]
