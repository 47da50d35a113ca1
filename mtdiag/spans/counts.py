"""Error spans counted per system and severity — the numbers users of xCOMET ask for (critical / major / minor per
system): the tool's predicted spans (:func:`~mtdiag.spans.predict_spans`, metric :data:`METRIC_NAME`) beside every
metric whose spans were imported (``EvalSet.metric_spans``, :mod:`mtdiag.io.metric_spans`)."""

from __future__ import annotations

import pandas as pd

from mtdiag.spans.confidence import DEFAULT_THRESHOLD, SEVERITIES
from mtdiag.spans.predict import predict_spans
from mtdiag.spans.records import METRIC_NAME

COUNT_COLUMNS = ["metric", "system", "outputs", *reversed(SEVERITIES), "spans"]
IMPORTED_NAME = f"{METRIC_NAME} (imported)"  # the tool's spans of an earlier run, read back as a metric's


def severity_counts(report, threshold: float = DEFAULT_THRESHOLD) -> pd.DataFrame:
    """One row per (metric, system): :data:`COUNT_COLUMNS` — the system's ``outputs`` (segments), its spans of
    each severity (``critical``, ``major``, ``minor``) and in all. The predicted spans (at ``threshold``) come
    first as metric ``mtdiag``, then each imported metric in name order (the tool's own spans read back from a
    file, ``mtdiag spans``, as ``mtdiag (imported)``); systems in the report's order."""
    predicted = predict_spans(report, threshold)[["system", "severity"]].assign(metric=METRIC_NAME)
    imported = report.evalset.metric_spans
    if imported is not None:
        imported = imported[["metric", "system", "severity"]].replace({"metric": {METRIC_NAME: IMPORTED_NAME}})
    frames = [predicted] + ([imported] if imported is not None else [])
    spans = pd.concat(frames, ignore_index=True)
    systems = list(report.evalset.systems)
    metrics = [METRIC_NAME] + sorted(set(spans["metric"]) - {METRIC_NAME})
    severities = list(reversed(SEVERITIES))
    counted = spans[spans["system"].isin(systems)].groupby(["metric", "system", "severity"]).size()
    grid = pd.MultiIndex.from_product([metrics, systems], names=["metric", "system"])  # every (metric, system)
    table = (counted.unstack("severity", fill_value=0) if len(counted) else pd.DataFrame(index=grid))
    table = table.reindex(index=grid, columns=severities, fill_value=0).fillna(0).astype("int64")
    table.columns.name = None
    table.insert(0, "outputs", report.evalset.n_segments)
    table["spans"] = table[severities].sum(axis=1)
    return table.reset_index()[COUNT_COLUMNS]
