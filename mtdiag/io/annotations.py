"""Human error annotations: MQM error TSVs and ESA span files (:func:`read_error_annotations`).

**MQM** (the format of google/wmt-mqm-human-evaluation): a TSV with ``system, doc, doc_id, seg_id, rater, source,
target, category, severity``; one row per error, the erroneous span marked ``<v>…</v>`` in ``target`` (or in
``source`` for source-side errors such as omissions; the columns may also be called ``target_with_error_span`` and
``source_with_error_span``, as in the WMT21 TED files), and a ``No-error`` row for a segment a rater found clean.
A segment's score is the negated weighted sum of its errors, averaged over the raters who rated it — as the
``mqm.seg.tsv`` files report it — by :func:`mtdiag.io.error_weights.segment_scores`, under a weighting scheme
(``error_weights``: by default ``wmt``, the weights of Google's WMT MQM releases; ``esa``; or a user's weights
file; every rule and its source in ``docs/inputs.md``). A row is an error when its weight is above 0.

**ESA** (Error Span Annotation, Kocmi et al. 2024): JSONL, one object per (system, segment[, rater]) with ``system``,
``seg_id``, a 0–100 ``score`` (or ``esa_score``) and ``error_spans``/``errors``: a list of ``{"start", "end",
"severity"[, "category"]}`` character offsets into the system output (``start_i``/``end_i`` are accepted too); or
a TSV with the same columns and ``error_spans`` as a JSON list. The segment score is the mean of the raters'
scores.

**Pearmut** (the human evaluation tool of WMT): its annotation log ``data/annotations/<campaign>.jsonl`` (or the
dashboard's ``annotations.json``) of a campaign ``mtdiag pearmut export`` made — ESA or MQM, each annotator a
rater (:mod:`mtdiag.io.pearmut_log`).

Both give (1) human scores per (system, segment) and (2) the spans, as a long frame ``seg, system, rater, side,
start, end, severity, category, weight`` — one row per error (``side``: ``target``/``source``, or empty with offsets
-1 when the error marks no span; offsets are characters of the text with the ``<v>`` marks removed), which the
segment detail draws and lists and buckets group by category — and (3) every output each rater rated, with errors
or without (``seg, system, rater``: ``EvalSet.rated``, the denominators of :mod:`mtdiag.analysis.errorstats`).

Error spans that a *metric* predicts (xCOMET) are read by :mod:`mtdiag.io.metric_spans` into their own frame.
"""

from __future__ import annotations

import json

import pandas as pd

from mtdiag.core.errors import InputError
from mtdiag.io.error_weights import DEFAULT_WEIGHTS, ErrorWeights, segment_scores
from mtdiag.io.parsing import Table, parse_score, parse_seg_id, parse_table, refuse_lone_surrogates
from mtdiag.io.pearmut_log import read_pearmut_log, sniff_log
from mtdiag.io.ratings import SPAN_COLUMNS, empty_spans, rated_frame, spans_frame
from mtdiag.io.text import DEFAULT_LIMITS, Limits, Source, quote, quote_names

ANNOTATION_FILES = ("mqm.errors.tsv", "esa.jsonl")  # read from a test-set folder automatically
_OPEN_MARK, _CLOSE_MARK = "<v>", "</v>"


def _marked_span(text: str) -> tuple[int, int] | None:
    """Character offsets of the ``<v>…</v>`` span in ``text`` once the marks are removed (None without one): the
    first ``<v>`` and the first ``</v>`` after it, found by two linear searches (a lazy ``<v>(.*?)</v>`` would be
    tried again from every unclosed ``<v>``: quadratic on a hostile cell)."""
    start = text.find(_OPEN_MARK)
    end = text.find(_CLOSE_MARK, start + len(_OPEN_MARK)) if start >= 0 else -1
    if end < 0:
        return None
    return start, end - len(_OPEN_MARK)


def read_error_annotations(source: Source, name: str | None = None, n_segments: int | None = None, *,
                           limits: Limits = DEFAULT_LIMITS,
                           error_weights: ErrorWeights = DEFAULT_WEIGHTS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(human scores ``seg, system, score``, error spans :data:`mtdiag.io.ratings.SPAN_COLUMNS`) from an MQM error
    TSV or an ESA JSONL/TSV file (told apart by their columns), errors weighed by ``error_weights``."""
    return read_error_annotations_rated(source, name, n_segments, limits=limits, error_weights=error_weights)[:2]


def read_error_annotations_rated(source: Source, name: str | None = None, n_segments: int | None = None, *,
                                 limits: Limits = DEFAULT_LIMITS, error_weights: ErrorWeights = DEFAULT_WEIGHTS,
                                 outputs: pd.DataFrame | None = None
                                 ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """:func:`read_error_annotations` and the rated outputs (:data:`mtdiag.io.ratings.RATED_COLUMNS`: one row per
    system, segment and rater of the file, errors or not). A Pearmut annotation log is read by :mod:`mtdiag.io.pearmut_log`
    (``outputs``: the loaded set's, which the outputs its annotators saw must be)."""
    source, log = sniff_log(source, name, limits=limits)
    if log is not None:
        return read_pearmut_log(*log, n_segments, outputs, error_weights)
    table = parse_table(source, name, None, limits, nested=True)
    lowered = [h.strip().lower() for h in table.header]
    if is_error_table(table.header) or "score" in lowered:
        return _scores_spans_rated(table, n_segments, error_weights)
    raise InputError(table.name, f"found columns {quote_names(table.header)}; expected an MQM error table (system, seg_id, "
                                 "rater, target, category, severity) or ESA scores (system, seg_id, score, error_spans)", 1)


def is_error_table(header: list[str]) -> bool:
    """Whether a header is an MQM error table's (``category`` and ``severity``) or ESA's (``error_spans``,
    ``errors`` or ``esa_score``)."""
    lowered = {h.strip().lower() for h in header}
    return {"severity", "category"} <= lowered or bool(lowered & {"error_spans", "errors", "esa_score"})


def error_table_scores_and_spans(table: Table, n_segments: int | None, error_weights: ErrorWeights = DEFAULT_WEIGHTS
                                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(human scores, error spans) of a parsed MQM error table (``category`` and ``severity``), else ESA."""
    return _scores_spans_rated(table, n_segments, error_weights)[:2]


def _scores_spans_rated(table: Table, n_segments: int | None, error_weights: ErrorWeights
                        ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    lowered = [h.strip().lower() for h in table.header]
    if "severity" in lowered and "category" in lowered:
        return _read_mqm(table, lowered, n_segments, error_weights)
    return _read_esa(table, lowered, n_segments, error_weights)


def _column(lowered: list[str], table: Table, *names: str, required: bool = True) -> int | None:
    for wanted in names:
        if wanted in lowered:
            return lowered.index(wanted)
    if required:
        raise InputError(table.name, f"missing column {names[0]}; found columns {quote_names(table.header)}", 1)
    return None


def _row_weight(error_weights: ErrorWeights, known: dict, category: str, severity: str, table: Table, line: int
                ) -> float:
    """The weight of one row (each distinct category and severity looked up once); a row the scheme has no
    weight for is an error naming its line."""
    key = (category, severity)
    if key not in known:
        try:
            known[key] = error_weights.weight(category, severity)
        except ValueError as exc:
            raise InputError(table.name, str(exc), line) from None
    return known[key]


def _read_mqm(table: Table, lowered: list[str], n_segments: int | None, error_weights: ErrorWeights
              ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    at = {key: _column(lowered, table, key) for key in ("system", "seg_id", "category", "severity")}
    rater_at = _column(lowered, table, "rater", required=False)
    target_at = _column(lowered, table, "target", "target_with_error_span", required=False)
    source_at = _column(lowered, table, "source", "source_with_error_span", required=False)
    rows, spans, known = [], [], {}
    for row, line in zip(table.rows, table.lines):
        system = row[at["system"]].strip()
        if not system:
            raise InputError(table.name, "the system name is empty", line)
        seg = parse_seg_id(row[at["seg_id"]], table, line, n_segments) - 1
        rater = row[rater_at].strip() if rater_at is not None else ""
        category, severity = row[at["category"]].strip(), row[at["severity"]].strip()
        weight = _row_weight(error_weights, known, category, severity, table, line)
        rows.append((system, seg, rater, weight))
        if weight > 0:  # an error: located by its <v> mark in the target, else in the source, else nowhere
            marked = [(side, _marked_span(row[column])) for side, column in (("target", target_at), ("source", source_at))
                      if column is not None]
            side, span = next(((side, span) for side, span in marked if span is not None), ("", (-1, -1)))
            spans.append((seg, system, rater, side, span[0], span[1], severity, category, weight))
    errors = pd.DataFrame(rows, columns=["system", "seg", "rater", "weight"])
    scores = segment_scores(errors, error_weights)
    return scores, spans_frame(spans), rated_frame((system, seg, rater) for system, seg, rater, _ in rows)


def _read_esa(table: Table, lowered: list[str], n_segments: int | None, error_weights: ErrorWeights
              ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    system_at = _column(lowered, table, "system")
    seg_at = _column(lowered, table, "seg_id", "line_id", "segment_id")
    score_at = _column(lowered, table, "score", "esa_score")
    rater_at = _column(lowered, table, "rater", "annotator", required=False)
    spans_at = _column(lowered, table, "error_spans", "errors", required=False)
    scores: dict[tuple[str, int], list[float]] = {}
    spans, rated = [], []
    for row, line in zip(table.rows, table.lines):
        system = row[system_at].strip()
        if not system:
            raise InputError(table.name, "the system name is empty", line)
        seg = parse_seg_id(row[seg_at], table, line, n_segments) - 1
        score = parse_score(row[score_at], table, line)
        if score is not None:
            scores.setdefault((system, seg), []).append(score)
        rater = row[rater_at].strip() if rater_at is not None else ""
        rated.append((system, seg, rater))
        raw = row[spans_at].strip() if spans_at is not None else ""
        for span in _esa_spans(raw, table, line, error_weights):
            spans.append((seg, system, rater, "target", *span))
    frame = pd.DataFrame([(seg, system, sum(v) / len(v)) for (system, seg), v in scores.items()],
                         columns=["seg", "system", "score"])
    return frame.sort_values(["system", "seg"], ignore_index=True), spans_frame(spans), rated_frame(rated)


def _esa_spans(raw: str, table: Table, line: int, error_weights: ErrorWeights
               ) -> list[tuple[int, int, str, str, float]]:
    if not raw or raw in ("[]", "null"):
        return []
    try:
        items = json.loads(raw)
    except (ValueError, RecursionError):
        raise InputError(table.name, f"error_spans {quote(raw)} is not a JSON list", line) from None
    refuse_lone_surrogates(items, raw, table.name, line)
    if not isinstance(items, list):
        raise InputError(table.name, "error_spans must be a list of {start, end, severity}", line)
    out = []
    for item in items:
        if not isinstance(item, dict):
            raise InputError(table.name, "each error span must be an object {start, end, severity}", line)
        start, end = item.get("start", item.get("start_i")), item.get("end", item.get("end_i"))
        if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 10**9 for v in (start, end)) or end < start:
            raise InputError(table.name, f"error span {quote(json.dumps(item))}: start and end must be character "
                                         "offsets with start <= end", line)
        severity = str(item.get("severity", "minor"))
        category = str(item.get("category", ""))
        out.append((start, end, severity, category, _row_weight(error_weights, {}, category, severity, table, line)))
    return out


def with_error_annotations(evalset, source: Source, name: str | None = None, *, limits: Limits = DEFAULT_LIMITS,
                           error_weights: ErrorWeights = DEFAULT_WEIGHTS):
    """``evalset`` with the error spans of an MQM/ESA file (``EvalSet.annotations``, the rated outputs in
    ``EvalSet.rated``) and, when it has no human scores yet, the segment scores they give under ``error_weights``
    (``EvalSet.human``); systems that are not loaded give a warning."""
    from dataclasses import replace

    scores, spans, rated = read_error_annotations_rated(source, name, evalset.n_segments, limits=limits,
                                                        error_weights=error_weights, outputs=evalset.hyps)
    display = name or (source[0] if isinstance(source, tuple) else str(source))
    warnings = list(evalset.warnings)
    unknown = sorted(set(scores["system"]) - set(evalset.systems))
    if unknown:
        warnings.append(f"{display}: annotations for systems that are not loaded ({quote_names(unknown)}) match no output")
    human = evalset.human if evalset.human is not None and len(evalset.human) else scores
    merged = spans if evalset.annotations is None else pd.concat([evalset.annotations, spans], ignore_index=True)
    if evalset.rated is not None:
        rated = pd.concat([evalset.rated, rated], ignore_index=True)
    return replace(evalset, human=human, annotations=merged, rated=rated, warnings=tuple(warnings))
