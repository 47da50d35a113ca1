"""A report on a slice of its segments, from the statistics already computed (:func:`slice_report`, :func:`where`).

A slice keeps segments and every system, so scores stay paired. Its report reuses the whole report's per-segment
sufficient statistics — the rows of the slice's segments are taken, nothing is tokenised or scored again — and
every corpus score is the metric's corpus formula on the slice's summed statistics (the statistics of a segment do
not depend on the other segments: :mod:`mtdiag.scoring.chunks` relies on the same fact). Segment scores are the whole
report's values of those segments. The metric objects (and so the options and signatures) are the whole report's.
One exception, by decision: the learned judge's scores (predicted MQM and ESA, :mod:`mtdiag.spans.judge`) read each
system's mean over the whole set as evidence about its outputs, so a slice keeps the whole set's judgement of its
outputs (the judge with all the evidence it had) — scoring the slice's segments alone would judge them on less.

Everything that reads a report then works on the slice unchanged: significance (:mod:`mtdiag.analysis.significance`), buckets,
the triage queue and flags, n-gram tables. Each treats the slice as a test set of its own: percentiles, the worst
10 % of the flags and the rare-word frequencies are the slice's. The slice's context is fresh, so views that need
tokens tokenise only the slice's texts, when first asked.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np

from mtdiag.scoring.evaluate import Report
from mtdiag.metrics import ScoringContext
from mtdiag.slices.expression import ExpressionError
from mtdiag.slices.selection import segment_mask


def _positions(report, segments) -> np.ndarray:
    positions = np.asarray(segments)
    if positions.dtype == bool:
        if len(positions) != report.evalset.n_segments:
            raise ValueError(f"a mask of {len(positions)} values for {report.evalset.n_segments} segments")
        return np.flatnonzero(positions)
    return positions.astype(np.int64, copy=False)


def slice_report(report: Report, segments, metrics: Sequence[str] | None = None) -> Report:
    """``report`` restricted to ``segments``, a boolean mask over its segments or ascending 0-based positions.

    A :class:`~mtdiag.scoring.evaluate.Report` of the sliced :class:`~mtdiag.core.evalset.EvalSet`
    (:meth:`~mtdiag.core.evalset.EvalSet.segment_subset`: renumbered, original ids kept) whose results are the rows of
    ``report``'s statistics and segment scores, corpus scores by each metric's corpus formula; of ``metrics`` only when
    given (a metric computed only to select the slice, :func:`mtdiag.pipeline.inputs.scoring`, is left out).
    ``ValueError`` for an empty slice."""
    positions = _positions(report, segments)
    if len(positions) == 0:
        raise ValueError("the slice keeps no segment")
    evalset = report.evalset.segment_subset(positions)
    kept = report.metrics if metrics is None else tuple(m for m in report.metrics if m in metrics)
    results = {}
    for (name, system), result in report.results.items():
        if name not in kept:
            continue
        stats = result.stats[positions]
        corpus = float(report.metric(name).corpus_score(stats.sum(axis=0)))
        results[(name, system)] = replace(result, corpus=corpus, segments=result.segments[positions], stats=stats)
    context = ScoringContext(evalset, report.context.options, tgt_lang=report.context.tgt_lang)
    options = report.options if metrics is None else replace(report.options, metrics=kept)
    return Report(evalset=evalset, options=options, metrics=kept, results=results, context=context,
                  metric_objects={name: report.metric_objects[name] for name in kept})


def where(report: Report, expression: str, tags=None) -> Report:
    """The report of the segments ``expression`` selects.

    The segments are :func:`~mtdiag.slices.selection.segment_mask`'s, ``tag`` read from ``tags``, then
    :func:`slice_report`; an :class:`~mtdiag.slices.expression.ExpressionError` when the expression cannot be read or
    keeps no segment."""
    mask = segment_mask(report, expression, tags)
    if not mask.any():
        raise ExpressionError(f"the expression keeps none of the {report.evalset.n_segments:,} segments")
    return slice_report(report, mask)
