"""Predicted spans as xCOMET-style records, the shape :mod:`mtdiag.io.metric_spans` reads (so ``mtdiag score
--metric-spans FILE`` reads an export back, and the tool's spans sit beside xCOMET's):

``{"system", "seg_id", "mt", "metric", "error_spans": [{"text", "start", "end", "severity", "confidence",
"kind"}, ...]}`` — one record per (system, segment), outputs without a predicted span included (an empty list);
``seg_id`` 1-based (a slice's segments keep the whole set's ids), ``start``/``end`` character offsets into ``mt``
(Python string indices: code points, not UTF-8 bytes), ``metric`` = :data:`METRIC_NAME`.
"""

from __future__ import annotations

import json
from typing import IO, Iterable

import pandas as pd

from mtdiag.spans.confidence import DEFAULT_THRESHOLD
from mtdiag.spans.predict import predict_spans

METRIC_NAME = "mtdiag"
FORMATS = ("jsonl", "json")


def span_records(report, spans: pd.DataFrame | None = None, threshold: float = DEFAULT_THRESHOLD) -> list[dict]:
    """The records of every (system, segment) of ``report``, systems in the report's order, then segments.

    ``spans`` defaults to :func:`~mtdiag.spans.predict_spans` at ``threshold``."""
    spans = predict_spans(report, threshold) if spans is None else spans
    listed: dict[tuple[str, int], list[dict]] = {}
    for row in spans.itertuples(index=False):
        listed.setdefault((row.system, int(row.seg)), []).append(
            {"text": row.text, "start": int(row.start), "end": int(row.end), "severity": row.severity,
             "confidence": round(float(row.confidence), 4), "kind": row.kind})
    evalset = report.evalset
    seg_ids = evalset.seg_ids
    records = []
    for system in evalset.systems:
        outputs = evalset.hyps[system].astype(str).tolist()
        for seg, mt in enumerate(outputs):
            records.append({"system": system, "seg_id": int(seg_ids[seg]), "mt": mt, "metric": METRIC_NAME,
                            "error_spans": listed.get((system, seg), [])})
    return records


def write_span_records(records: Iterable[dict], stream: IO[str], fmt: str = "jsonl",
                       indent: int | None = None) -> None:
    """Write records as JSON Lines (one record a line) or one JSON list (``indent`` spaces, or one line)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown span format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "jsonl":
        for record in records:
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        return
    json.dump(list(records), stream, ensure_ascii=False, indent=indent)
    stream.write("\n")
