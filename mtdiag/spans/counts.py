"""Error spans counted per system and severity — the numbers users of xCOMET ask for (critical / major / minor per
system) — with an MQM score beside them: the tool's predicted spans (:func:`~mtdiag.spans.predict_spans`, metric
:data:`METRIC_NAME`) with their predicted MQM (:mod:`mtdiag.metrics.predicted_mqm`), the errors human raters marked
(:data:`HUMAN_NAME`, with the human MQM score) when the set has error annotations, and every metric whose spans
were imported (``EvalSet.metric_spans``, :mod:`mtdiag.io.metric_spans`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.spans.confidence import DEFAULT_THRESHOLD, SEVERITIES
from mtdiag.spans.judge import judged
from mtdiag.spans.predict import predict_spans
from mtdiag.spans.records import METRIC_NAME

COUNT_COLUMNS = ["metric", "system", "outputs", *reversed(SEVERITIES), "spans", "mqm"]
IMPORTED_NAME = f"{METRIC_NAME} (imported)"  # the tool's spans of an earlier run, read back as a metric's
HUMAN_NAME = "human"  # the raters' errors (MQM / ESA annotations)


def severity_counts(report, threshold: float = DEFAULT_THRESHOLD) -> pd.DataFrame:
    """The span counts by severity and the MQM score of each system, one row per (metric, system).

    Columns :data:`COUNT_COLUMNS`: the outputs counted, their spans of each severity (``critical``, ``major``,
    ``minor``) and in all, and ``mqm``. First the predicted spans (at ``threshold``) as metric ``mtdiag`` over every
    output, ``mqm`` the system's predicted MQM (the learned judge's, the ``predicted_mqm`` metric's corpus score); then,
    with error annotations, the human errors as metric ``human`` over the rated outputs (source-side errors included: an
    omission is an error of the output), ``mqm`` the human score (mean over the rated outputs) — with human scores but
    no error rows, that score alone (the counts empty: ``<NA>``); a system no one rated has no human row; then each
    imported metric in name order (the tool's own spans read back from a file, ``mtdiag spans``, as
    ``mtdiag (imported)``), without an MQM score. Systems in the report's order."""
    evalset = report.evalset
    systems = list(evalset.systems)
    spans = predict_spans(report, threshold)
    predicted_mqm = judged(report)["mqm"].groupby(level="system").mean().reindex(systems).to_numpy()
    every = {s: evalset.n_segments for s in systems}
    frames = [_rows(spans.assign(metric=METRIC_NAME), [METRIC_NAME], systems, every,
                    {(METRIC_NAME, s): v for s, v in zip(systems, predicted_mqm)})]
    if evalset.annotations is not None:
        frames.append(_rows(evalset.annotations.assign(metric=HUMAN_NAME), [HUMAN_NAME], systems, _rated(evalset),
                            _human_mqm(evalset)))
    elif evalset.human is not None:  # scores without error rows: the score beside, no counts
        scored, human = evalset.human.groupby("system").size().to_dict(), _human_mqm(evalset)
        frames.append(pd.DataFrame([{"metric": HUMAN_NAME, "system": s, "outputs": int(scored.get(s, 0)),
                                     "mqm": human.get((HUMAN_NAME, s), np.nan)} for s in systems]))
    imported = evalset.metric_spans
    if imported is not None:
        imported = imported[["metric", "system", "severity"]].replace({"metric": {METRIC_NAME: IMPORTED_NAME}})
        frames.append(_rows(imported, sorted(set(imported["metric"])), systems, every, {}))
    table = pd.concat([f for f in frames if len(f)], ignore_index=True).reindex(columns=COUNT_COLUMNS)
    table = table[(table["metric"] != HUMAN_NAME) | (table["outputs"] > 0)]  # systems no one rated: no human row
    counts = [*reversed(SEVERITIES), "spans"]
    return table.reset_index(drop=True).astype({c: "Int64" for c in ["outputs", *counts]})


def _rows(spans: pd.DataFrame, metrics: list[str], systems: list[str], outputs: dict[str, int],
          mqm: dict[tuple[str, str], float]) -> pd.DataFrame:
    """One row per (metric, system) of ``metrics`` x ``systems``: the outputs, the spans of each severity, their
    sum and the MQM score — built by one reindex of the counts over that grid, not a loop over both (a span file
    may name up to a thousand metrics)."""
    severities = list(reversed(SEVERITIES))
    severity = spans["severity"].astype(str).str.strip().str.lower()
    counted = spans.assign(severity=severity)[spans["system"].isin(systems)].groupby(
        ["metric", "system", "severity"]).size()
    grid = pd.MultiIndex.from_product([metrics, systems], names=["metric", "system"])
    table = counted.unstack("severity", fill_value=0) if len(counted) else pd.DataFrame(index=grid)
    table = table.reindex(index=grid, columns=severities, fill_value=0).fillna(0).astype("int64")
    table.columns.name = None
    table.insert(0, "outputs", np.tile([int(outputs.get(s, 0)) for s in systems], len(metrics)))
    table["spans"] = table[severities].sum(axis=1)
    table["mqm"] = pd.Series(mqm, dtype="float64").reindex(grid).to_numpy()
    return table.reset_index()


def _rated(evalset) -> dict[str, int]:
    """Per system, the outputs a rater rated (``EvalSet.rated``, else those with an error row)."""
    rated = evalset.rated if evalset.rated is not None else evalset.annotations
    return rated.drop_duplicates(["system", "seg"]).groupby("system").size().to_dict()


def _human_mqm(evalset) -> dict[tuple[str, str], float]:
    """Per system, the mean human score over its rated segments (MQM: minus the weighted errors)."""
    if evalset.human is None:
        return {}
    return {(HUMAN_NAME, s): float(v) for s, v in evalset.human.groupby("system")["score"].mean().items()}
