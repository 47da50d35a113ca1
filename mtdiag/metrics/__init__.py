"""The metric registry: every metric mtdiag computes, with its metadata.

The CLI's ``--metrics`` choices and ``--METRIC-OPTION`` flags, the API's option validation, the dashboard's
columns, option widgets, number formats and evidence, significance, exports and a parametrised smoke test all read
:data:`REGISTRY` (:class:`mtdiag.core.registry.Registry`: names are words, a taken name is refused). Adding a metric
= one module + its name in :data:`MODULES` (or :func:`register` at run time).

Metrics imported from a scores file (COMET, MetricX, …: :mod:`mtdiag.metrics.imported`) are never in
:data:`REGISTRY`: they belong to the evaluation set that brought them (``EvalSet.imported``), so on a server one
session's imported names and directions never reach another session. Whatever may meet such a metric
resolves it through the set or the report: :func:`metric_classes`, :func:`metric_info` and :func:`create_metric`
take ``within`` — an ``EvalSet``, or anything holding one as ``.evalset`` (a ``Report``).
"""

from __future__ import annotations

from inspect import isabstract
from types import ModuleType

from mtdiag.core.registry import Registry
from mtdiag.metrics.base import (DerivedMetric, EvidenceTable, Metric, MetricInfo, MetricResult, OptionSpec,
                                 ScoringContext, SegmentEvidence, Signature)

MODULES = (
    "otem_utem",
    "waft_neva",
    "standard",
    "ter",
    "length",
    "terminology",
    "consensus",
    "chrf_consensus",
    "predicted_mqm",
)
"""The modules of the metrics, in the order of the command line's choices and the dashboard's columns: a new metric
is its module and its name here — the one line it adds (every metric the module defines is registered, in its
order)."""


def metrics_of(module: ModuleType) -> list[type[Metric]]:
    """The metrics a module defines, in the module's order.

    They are its :class:`Metric` subclasses that declare their own ``info`` (a shared base such as
    ``TermWindowOverlap`` declares none)."""
    found = [obj for obj in vars(module).values() if isinstance(obj, type) and issubclass(obj, Metric)
             and obj.__module__ == module.__name__ and "info" in vars(obj) and not isabstract(obj)]
    return list(dict.fromkeys(found))


REGISTRY: Registry[type[Metric]] = Registry.of_modules("metric", "mtdiag.metrics", MODULES,
                                                       lambda cls: cls.info.name, metrics_of)
"""Every registered metric class by name, in the order of :data:`MODULES` (then those registered at run time)."""


def metric_classes(within=None) -> dict[str, type[Metric]]:
    """The registered metrics, then the imported metrics of ``within``, by name.

    ``within`` is an ``EvalSet``, a ``Report``, or None for the registered ones only. An imported name that is a
    registered metric is a ``ValueError``."""
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
    """Add a metric class to the registry (every surface picks it up); its name must be new and a word."""
    return REGISTRY.register(cls)


def unregister(name: str) -> None:
    """Remove metric ``name`` from the registry (nothing when there is none)."""
    REGISTRY.unregister(name)


def registered(cls: type[Metric], *, replace: bool = False):
    """A context in which the metric ``cls`` is registered: ``with registered(MyMetric): ...``.

    The metric is in the registry inside the block only; ``replace=True`` stands in for a registered metric of that
    name and puts it back after (:meth:`Registry.registered`)."""
    return REGISTRY.registered(cls, replace=replace)


__all__ = ["MODULES", "REGISTRY", "DerivedMetric", "EvidenceTable", "Metric", "MetricInfo", "MetricResult", "OptionSpec", "ScoringContext",
           "SegmentEvidence", "Signature", "create_metric", "metric_class", "metric_classes", "metric_info",
           "metrics_of", "register", "registered", "unregister"]
