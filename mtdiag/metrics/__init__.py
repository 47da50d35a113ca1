"""The metric registry: every metric mtdiag computes, with its metadata.

The CLI's ``--metrics`` choices and ``--METRIC-OPTION`` flags, the API's option validation, the dashboard's
columns, option widgets, number formats and evidence, significance, exports and a parametrised smoke test all read
:data:`REGISTRY`. Adding a metric = one module + one entry here (or :func:`register` at run time).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from mtdiag.metrics.base import (EvidenceTable, Metric, MetricInfo, MetricResult, OptionSpec, ScoringContext,
                                 SegmentEvidence, Signature)
from mtdiag.metrics.consensus import Consensus
from mtdiag.metrics.length import LengthRatio
from mtdiag.metrics.otem_utem import OTEM, UTEM
from mtdiag.metrics.standard import BLEU, CHRF
from mtdiag.metrics.ter import TER
from mtdiag.metrics.terminology import TermExactMatch, TermTER, TermWindow2, TermWindow3
from mtdiag.metrics.waft_neva import NEVA, WAFT

REGISTRY: dict[str, type[Metric]] = {
    cls.info.name: cls
    for cls in (OTEM, UTEM, WAFT, NEVA, BLEU, CHRF, TER, LengthRatio, TermExactMatch, TermWindow2, TermWindow3,
                TermTER, Consensus)
}


def metric_info(name: str) -> MetricInfo:
    """The metadata of a registered metric (``KeyError`` with the known names otherwise)."""
    if name not in REGISTRY:
        raise KeyError(f"unknown metric {name!r}; known: {', '.join(REGISTRY)}")
    return REGISTRY[name].info


def create_metric(name: str, **options) -> Metric:
    """An instance of a registered metric with validated options."""
    return REGISTRY[metric_info(name).name](**options)


def register(cls: type[Metric]) -> type[Metric]:
    """Add a metric class to the registry (every surface picks it up); its name must be new and a key-safe word."""
    name = cls.info.name
    if name in REGISTRY:
        raise ValueError(f"a metric named {name!r} is already registered")
    if not name.replace("_", "").isalnum() or not name[0].isalpha():
        raise ValueError(f"metric name {name!r}: use letters, digits and underscores, starting with a letter")
    REGISTRY[name] = cls
    return cls


def unregister(name: str) -> None:
    REGISTRY.pop(name, None)


@contextmanager
def registered(cls: type[Metric]) -> Iterator[type[Metric]]:
    """``with registered(MyMetric): ...`` — the metric is in the registry inside the block only."""
    register(cls)
    try:
        yield cls
    finally:
        unregister(cls.info.name)


__all__ = ["REGISTRY", "EvidenceTable", "Metric", "MetricInfo", "MetricResult", "OptionSpec", "ScoringContext",
           "SegmentEvidence", "Signature", "create_metric", "metric_info", "register", "registered", "unregister"]
