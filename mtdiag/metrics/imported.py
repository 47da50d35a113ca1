"""Metrics computed elsewhere (COMET, MetricX, xCOMET, …) as registry metrics, from their segment scores.

A scores file gives one score per (system, segment) and metric (:func:`mtdiag.io.read_metric_scores`); the EvalSet
carries them (``EvalSet.scores``) with each metric's direction and source (``EvalSet.imported``). Such a metric is a
registry metric like any other — every view, the triage ranking, significance, human correlation, buckets and
exports pick it up — with these definitions:

- sufficient statistics per segment: ``[score, 1]`` where the file has a score, ``[0, 0]`` where it has none;
- corpus score: the mean of the segment scores (summed scores / scored segments) — how COMET, MetricX and xCOMET
  define a system score, so a paired bootstrap resamples exactly that mean (Koehn 2004 on the mean); where the
  scores came with the metric's own published system scores (``ImportedMetricInfo.published``: a WMT
  ``.sys.score``, which need not be that mean), the whole set's corpus score is the published one and the
  mean is used only where the published score does not apply: a slice, a resample, a system it does not score;
- segment score: the file's score (NaN where missing);
- signature: ``NAME|nrefs:N|source:FILE|imported:yes|version:…`` (where the numbers came from).

A system-level score in the file is kept for checking: :func:`system_score_mismatches` lists systems whose given
score differs from the mean of its segment scores (a file summarising differently, or on other segments).

Classes are made per (name, direction) by :func:`imported_metric` and named ``Imported_<name>_<up|down>`` in this
module; the module builds a missing one on attribute access, so a metric object pickles to a Dask worker (which
imports this module afresh) and means the same thing there. They are never registered: the EvalSet that carries the
scores names them (:func:`imported_classes`; :func:`mtdiag.metrics.metric_classes`).
"""

from __future__ import annotations

import threading
from dataclasses import replace

import numpy as np

from mtdiag.core.evalset import ORIGIN_COLUMN
from mtdiag.metrics.base import Metric, MetricInfo, MetricResult, ScoringContext

_LOCK = threading.Lock()
_PREFIX = "Imported_"


def class_name(name: str, higher_is_better: bool) -> str:
    """The class name of an imported metric: ``Imported_<name>_<up|down>``."""
    return f"{_PREFIX}{name}_{'up' if higher_is_better else 'down'}"


def imported_metric(name: str, higher_is_better: bool) -> type[Metric]:
    """The metric class of an imported metric ``name`` with this direction (made once, then reused)."""
    key = class_name(name, higher_is_better)
    with _LOCK:
        cls = globals().get(key)
        if cls is None:
            info = MetricInfo(
                name=name, label=name, scale=1, higher_is_better=higher_is_better, decimals=4, needs=(),
                description=f"{name}: segment scores imported from a file (computed elsewhere); corpus = mean of the "
                            "segment scores",
                paper="imported scores (e.g. COMET: Rei et al. 2020; MetricX: Juraska et al. 2023)",
            )
            cls = type(key, (ImportedMetric,), {"info": info, "__module__": __name__, "__qualname__": key})
            globals()[key] = cls
        return cls


def __getattr__(attribute: str):
    """Build ``Imported_<name>_<up|down>`` on first access (unpickling in a fresh process)."""
    if attribute.startswith(_PREFIX) and attribute.endswith(("_up", "_down")):
        name, _, direction = attribute[len(_PREFIX):].rpartition("_")
        return imported_metric(name, direction == "up")
    raise AttributeError(attribute)


class ImportedMetric(Metric):
    """Segment scores from ``EvalSet.scores``; corpus = their mean (see the module docstring)."""

    stat_names = ("score_sum", "scored")

    def statistics(self, ctx: ScoringContext, system: str) -> np.ndarray:
        """Per segment: ``[score, 1]`` where the file has a score, ``[0, 0]`` where it has none."""
        stats = np.zeros((ctx.evalset.n_segments, 2))
        segs, values = ctx.memo(("imported scores",), lambda: _scores_by_key(ctx.evalset)).get(
            (self.info.name, system), (np.zeros(0, dtype=np.int64), np.zeros(0)))
        stats[segs, 0] = values
        stats[segs, 1] = 1.0
        return stats

    def result(self, system: str, stats: np.ndarray, ctx: ScoringContext) -> MetricResult:
        """The scores of one system; on a whole set, the published corpus score where the file gave one."""
        result = super().result(system, stats, ctx)
        published = ctx.memo(("published scores",), lambda: _published_scores(ctx.evalset)).get(
            (self.info.name, system))

        return result if published is None else replace(result, corpus=published)

    def corpus_score(self, stats_sum: np.ndarray) -> np.ndarray:
        """The mean of the segment scores (summed scores / scored segments); NaN without any."""
        stats_sum = np.asarray(stats_sum, dtype=float)
        total, scored = stats_sum[..., 0], stats_sum[..., 1]
        return np.where(scored > 0, total / np.where(scored > 0, scored, 1), np.nan)

    def signature_fields(self, ctx: ScoringContext) -> tuple[tuple[str, str], ...]:
        """Where the numbers came from: ``source:FILE|imported:yes``."""
        source = next((m.source for m in ctx.evalset.imported if m.name == self.info.name), "unknown")
        return (("source", source), ("imported", "yes"))


def _scores_by_key(evalset) -> dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]:
    """``{(metric, system): (segments, scores)}`` of the set's imported segment scores (missing ones left out),
    grouped once per scoring context: a WMT release brings ~70 metrics × ~17 systems, and a filter of the long
    frame per pair read it a thousand times."""
    scores = evalset.scores
    if scores is None or not len(scores):
        return {}
    scores = scores.dropna(subset=["score"])
    segs, values = scores["seg"].to_numpy(dtype=np.int64), scores["score"].to_numpy(dtype=float)
    groups = scores.groupby(["metric", "system"], sort=False, observed=True).indices
    return {(str(metric), str(system)): (segs[rows], values[rows]) for (metric, system), rows in groups.items()}


def _published_scores(evalset) -> dict[tuple[str, str], float]:
    """``{(metric, system): score}`` of the published system scores of the set's imported metrics — none on a
    slice (:data:`~mtdiag.core.evalset.ORIGIN_COLUMN`): a published score describes the whole set."""
    if ORIGIN_COLUMN in evalset.segments.columns:
        return {}
    return {(spec.name, system): float(score) for spec in evalset.imported if spec.published
            for system, score in spec.system_scores}


def imported_classes(evalset) -> dict[str, type[Metric]]:
    """The metric classes of the EvalSet's imported metrics, by name.

    They are the set's own, never added to the process-wide registry (on a server, one session's imported names and
    directions must not reach another). A name that is a registered (built-in) metric is a ``ValueError``."""
    from mtdiag.metrics import REGISTRY

    classes = {}
    for spec in evalset.imported:
        if spec.name in REGISTRY:
            raise ValueError(f"imported scores for {spec.name!r} clash with the built-in metric of that name; rename "
                             f"the metric in {spec.source}")
        classes[spec.name] = imported_metric(spec.name, spec.higher_is_better)
    return classes


def system_score_mismatches(report, tolerance: float = 1e-6) -> list[str]:
    """Systems whose system-level score in the scores file differs from the mean of their segment scores."""
    problems = []
    for spec in report.evalset.imported:
        if spec.name not in report.metrics or spec.published:

            continue
        for system, given in spec.system_scores:
            if system in report.corpus.index and abs(report.corpus.at[system, spec.name] - given) > tolerance:
                problems.append(f"{spec.source}: the system score of {spec.name} for {system} is {given:g}, but its "
                                f"segment scores average {report.corpus.at[system, spec.name]:g}")
    return problems
