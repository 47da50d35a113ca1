"""The metric registry: every metric mtdiag computes, with its metadata.

The CLI's ``--metrics`` choices and ``--METRIC-OPTION`` flags, the API's option validation, the dashboard's
columns, option widgets, number formats and evidence, significance, exports and a parametrised smoke test all read
:data:`REGISTRY`. Adding a metric = one module + one entry here (or :func:`register` at run time).

Metrics imported from a scores file (COMET, MetricX, …: :mod:`mtdiag.metrics.imported`) are never in
:data:`REGISTRY`: they belong to the evaluation set that brought them (``EvalSet.imported``), so on a server one
session's imported names and directions never reach another session. Whatever may meet such a metric
resolves it through the set or the report: :func:`metric_classes`, :func:`metric_info` and :func:`create_metric`
take ``within`` — an ``EvalSet``, or anything holding one as ``.evalset`` (a ``Report``).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from mtdiag.metrics.base import (DerivedMetric, EvidenceTable, Metric, MetricInfo, MetricResult, OptionSpec,
                                 ScoringContext, SegmentEvidence, Signature)
from mtdiag.metrics.consensus import Consensus
from mtdiag.metrics.length import LengthRatio
from mtdiag.metrics.otem_utem import OTEM, UTEM
from mtdiag.metrics.predicted_mqm import PredictedESA, PredictedMQM
from mtdiag.metrics.standard import BLEU, CHRF
from mtdiag.metrics.ter import TER
from mtdiag.metrics.terminology import TermExactMatch, TermTER, TermWindow2, TermWindow3
from mtdiag.metrics.waft_neva import NEVA, WAFT

REGISTRY: dict[str, type[Metric]] = {
    cls.info.name: cls
    for cls in (OTEM, UTEM, WAFT, NEVA, BLEU, CHRF, TER, LengthRatio, TermExactMatch, TermWindow2, TermWindow3,
                TermTER, Consensus, PredictedMQM, PredictedESA)
}


def metric_classes(within=None) -> dict[str, type[Metric]]:
    """The registered metrics, then the imported metrics of ``within`` (an ``EvalSet``, a ``Report``, or None for
    the registered ones only), by name. An imported name that is a registered metric is a ``ValueError``."""
    evalset = getattr(within, "evalset", within)
    if evalset is None or not evalset.imported:
        return dict(REGISTRY)
    from mtdiag.metrics.imported import imported_classes

    return {**REGISTRY, **imported_classes(evalset)}


def metric_class(name: str, within=None) -> type[Metric]:
    """The class of metric ``name``: registered, or imported by ``within`` (``KeyError`` naming the known ones)."""
    if name in REGISTRY:
        return REGISTRY[name]
    classes = metric_classes(within)
    if name not in classes:
        raise KeyError(f"unknown metric {name!r}; known: {', '.join(classes)}")
    return classes[name]


def metric_info(name: str, within=None) -> MetricInfo:
    """The metadata of metric ``name``: registered, or imported by ``within`` (an ``EvalSet`` or a ``Report``)."""
    return metric_class(name, within).info


def create_metric(name: str, within=None, **options) -> Metric:
    """An instance of metric ``name`` (registered, or imported by ``within``) with validated options."""
    return metric_class(name, within)(**options)


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


__all__ = ["REGISTRY", "DerivedMetric", "EvidenceTable", "Metric", "MetricInfo", "MetricResult", "OptionSpec", "ScoringContext",
           "SegmentEvidence", "Signature", "create_metric", "metric_class", "metric_classes", "metric_info",
           "register", "registered", "unregister"]
