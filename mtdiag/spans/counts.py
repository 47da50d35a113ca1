"""Error spans counted per system and severity — the numbers users of xCOMET ask for (critical / major / minor per
system): the tool's predicted spans (:func:`~mtdiag.spans.predict_spans`, metric :data:`METRIC_NAME`) beside every
metric whose spans were imported (``EvalSet.metric_spans``, :mod:`mtdiag.io.metric_spans`)."""

from __future__ import annotations

import pandas as pd

from mtdiag.spans.confidence import DEFAULT_THRESHOLD, SEVERITIES
from mtdiag.spans.predict import predict_spans
from mtdiag.spans.records import METRIC_NAME

COUNT_COLUMNS = ["metric", "system", "outputs", *reversed(SEVERITIES), "spans"]


def severity_counts(report, threshold: float = DEFAULT_THRESHOLD) -> pd.DataFrame:
    """One row per (metric, system): :data:`COUNT_COLUMNS` — the system's ``outputs`` (segments), its spans of
    each severity (``critical``, ``major``, ``minor``) and in all. The predicted spans (at ``threshold``) come
    first as metric ``mtdiag``, then each imported metric in name order; systems in the report's order."""
    predicted = predict_spans(report, threshold)[["system", "severity"]].assign(metric=METRIC_NAME)
    imported = report.evalset.metric_spans
    frames = [predicted] + ([imported[["metric", "system", "severity"]]] if imported is not None else [])
    spans = pd.concat(frames, ignore_index=True)
    systems = list(report.evalset.systems)
    metrics = [METRIC_NAME] + sorted(set(spans["metric"]) - {METRIC_NAME})
    counted = spans[spans["system"].isin(systems)].groupby(["metric", "system", "severity"]).size()
    rows = []
    for metric in metrics:
        for system in systems:
            by_severity = {s: int(counted.get((metric, system, s), 0)) for s in reversed(SEVERITIES)}
            rows.append({"metric": metric, "system": system, "outputs": report.evalset.n_segments, **by_severity,
                         "spans": sum(by_severity.values())})
    return pd.DataFrame(rows, columns=COUNT_COLUMNS)
