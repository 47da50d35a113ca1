"""The metric registry: every metric mtdiag computes, with its metadata.

The CLI's ``--metrics`` choices, the dashboard's columns and options, and a parametrised smoke test all read
:data:`REGISTRY`. Adding a metric = one module + one entry here.
"""

from __future__ import annotations

from mtdiag.metrics.base import Metric, MetricInfo, MetricResult, OptionSpec, ScoringContext
from mtdiag.metrics.otem_utem import OTEM, UTEM
from mtdiag.metrics.standard import BLEU, CHRF
from mtdiag.metrics.ter import TER
from mtdiag.metrics.terminology import TermExactMatch, TermTER, TermWindow2, TermWindow3
from mtdiag.metrics.waft_neva import NEVA, WAFT

REGISTRY: dict[str, type[Metric]] = {
    cls.info.name: cls
    for cls in (OTEM, UTEM, WAFT, NEVA, BLEU, CHRF, TER, TermExactMatch, TermWindow2, TermWindow3, TermTER)
}


def metric_info(name: str) -> MetricInfo:
    """The metadata of a registered metric (``KeyError`` with the known names otherwise)."""
    if name not in REGISTRY:
        raise KeyError(f"unknown metric {name!r}; known: {', '.join(REGISTRY)}")
    return REGISTRY[name].info


def create_metric(name: str, **options) -> Metric:
    """An instance of a registered metric with validated options."""
    return REGISTRY[metric_info(name).name](**options)


__all__ = ["REGISTRY", "Metric", "MetricInfo", "MetricResult", "OptionSpec", "ScoringContext", "create_metric", "metric_info"]
