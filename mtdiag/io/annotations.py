"""Human error annotations: MQM error TSVs and ESA span files (:func:`read_error_annotations`).

**MQM** (the format of google/wmt-mqm-human-evaluation): a TSV with ``system, doc, doc_id, seg_id, rater, source,
target, category, severity``; one row per error, the erroneous span marked ``<v>…</v>`` in ``target`` (or in
``source`` for source-side errors such as omissions; the columns may also be called ``target_with_error_span`` and
``source_with_error_span``, as in the WMT21 TED files), and a ``No-error`` row for a segment a rater found clean.
Every row is kept as it is written (:data:`mtdiag.io.ratings.ERROR_COLUMNS`); the weights are an option of the
analysis, applied to the kept rows afterwards (:func:`mtdiag.io.error_weights.weighed`: by default ``wmt``, the
weights of Google's WMT MQM releases; ``esa``; or a user's weights file; every rule and its source in
``docs/inputs.md``), so another scheme re-weighs the rows without reading the file again. Under a scheme a row is
an error when its weight is above 0, and a segment's score is the negated weighted sum of its errors, averaged over
the raters who rated it — as the ``mqm.seg.tsv`` files report it.

**ESA** (Error Span Annotation, Kocmi et al. 2024): JSONL, one object per (system, segment[, rater]) with ``system``,
``seg_id``, a 0–100 ``score`` (or ``esa_score``) and ``error_spans``/``errors``: a list of ``{"start", "end",
"severity"[, "category"]}`` character offsets into the system output (``start_i``/``end_i`` are accepted too); or
a TSV with the same columns and ``error_spans`` as a JSON list. The segment score is the mean of the raters'
scores.

**Pearmut** (the human evaluation tool of WMT): its annotation log ``data/annotations/<campaign>.jsonl`` (or the
dashboard's ``annotations.json``) of a campaign ``mtdiag pearmut export`` made — ESA or MQM, each annotator a
rater (:mod:`mtdiag.io.pearmut_log`).

Each gives (:class:`Ratings`) (1) the scores the file gives itself (ESA's; none for MQM), (2) the error rows —
``side``: ``target``/``source``, or empty with offsets -1 when the error marks no span; offsets are characters of
the text with the ``<v>`` marks removed —, which weighed become the spans the segment detail draws and lists and
buckets group by category (``EvalSet.annotations``), and (3) every output each rater rated, with errors or without
(``seg, system, rater``: ``EvalSet.rated``, the denominators of :mod:`mtdiag.analysis.errorstats`).

Error spans that a *metric* predicts (xCOMET) are read by :mod:`mtdiag.io.metric_spans` into their own frame.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import NamedTuple

import pandas as pd

from mtdiag.core.errors import InputError
from mtdiag.core.evalset import EvalSet
from mtdiag.io.error_weights import DEFAULT_WEIGHTS, ErrorWeights, row_weights, segment_scores, spans_of
from mtdiag.io.parsing import Table, parse_score, parse_seg_id, parse_table, refuse_lone_surrogates
from mtdiag.io.pearmut_log import read_pearmut_log, sniff_log
from mtdiag.io.ratings import RATED_COLUMNS, error_rows_frame, rated_frame
from mtdiag.io.text import DEFAULT_LIMITS, Limits, Source, quote, quote_names

ANNOTATION_FILES = ("mqm.errors.tsv", "esa.jsonl")  # read from a test-set folder automatically
_OPEN_MARK, _CLOSE_MARK = "<v>", "</v>"


class Ratings(NamedTuple):
    """What an annotation file holds: its own scores, its error rows and the outputs each rater rated.

    ``scores``: the scores it gives itself (``seg, system, score``; ESA's, else empty); ``rows``: its error rows as
    written (:data:`mtdiag.io.ratings.ERROR_COLUMNS`); ``rated``: the outputs each rater rated."""

    scores: pd.DataFrame
    rows: pd.DataFrame
    rated: pd.DataFrame


def _marked_span(text: str) -> tuple[int, int] | None:
    """Character offsets of the ``<v>…</v>`` span in ``text`` once the marks are removed (None without one): the
    first ``<v>`` and the first ``</v>`` after it, found by two linear searches (a lazy ``<v>(.*?)</v>`` would be
    tried again from every unclosed ``<v>``: quadratic on a hostile cell)."""
    start = text.find(_OPEN_MARK)
    end = text.find(_CLOSE_MARK, start + len(_OPEN_MARK)) if start >= 0 else -1
    if end < 0:
        return None
    return start, end - len(_OPEN_MARK)


def read_ratings(source: Source, name: str | None = None, n_segments: int | None = None, *,
                 limits: Limits = DEFAULT_LIMITS, outputs: pd.DataFrame | None = None) -> Ratings:
    """The :class:`Ratings` of an MQM error TSV, an ESA JSONL/TSV file or a Pearmut annotation log.

    The MQM and ESA files are told apart by their columns; a Pearmut log is read by :mod:`mtdiag.io.pearmut_log`
    (``outputs``: the loaded set's, which the outputs its annotators saw must be). Nothing is weighed here."""
    source, log = sniff_log(source, name, limits=limits)
    if log is not None:
        return Ratings(*read_pearmut_log(*log, n_segments, outputs))
    table = parse_table(source, name, None, limits, nested=True)
    lowered = [h.strip().lower() for h in table.header]
    if is_error_table(table.header) or "score" in lowered:
        return table_ratings(table, n_segments)
    raise InputError(table.name, f"found columns {quote_names(table.header)}; expected an MQM error table (system, seg_id, "
                                 "rater, target, category, severity) or ESA scores (system, seg_id, score, error_spans)", 1)


def scores_under(ratings: Ratings, error_weights: ErrorWeights = DEFAULT_WEIGHTS) -> pd.DataFrame:
    """The human scores ``seg, system, score`` of one file's ratings under ``error_weights``.

    The scores it gives (a score table's in its order; ESA's) and those its scored errors give (MQM; then sorted by
    system and segment)."""
    if not len(ratings.rows):
        return ratings.scores
    weights = row_weights(ratings.rows, error_weights)
    scored = ratings.rows["scored"].to_numpy(dtype=bool)
    derived = segment_scores(ratings.rows[scored].assign(weight=weights[scored]))
    scores = pd.concat([ratings.scores, derived], ignore_index=True) if len(derived) else ratings.scores
    return scores.sort_values(["system", "seg"], ignore_index=True)


def read_error_annotations(source: Source, name: str | None = None, n_segments: int | None = None, *,
                           limits: Limits = DEFAULT_LIMITS, error_weights: ErrorWeights = DEFAULT_WEIGHTS
                           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The human scores and the error spans of one file under ``error_weights``, in one call.

    Returns (human scores ``seg, system, score``, error spans :data:`mtdiag.io.ratings.SPAN_COLUMNS`):
    :func:`scores_under` and the rows that weigh more than 0. For scripts; a loaded set keeps the rows and weighs them
    later (:func:`with_error_annotations`)."""
    ratings = read_ratings(source, name, n_segments, limits=limits)
    return scores_under(ratings, error_weights), spans_of(ratings.rows, row_weights(ratings.rows, error_weights))


def is_error_table(header: list[str]) -> bool:
    """Whether a header is an MQM error table's or ESA's.

    An MQM error table has ``category`` and ``severity``; ESA's has ``error_spans``, ``errors`` or ``esa_score``."""
    lowered = {h.strip().lower() for h in header}
    return {"severity", "category"} <= lowered or bool(lowered & {"error_spans", "errors", "esa_score"})


def table_ratings(table: Table, n_segments: int | None) -> Ratings:
    """The :class:`Ratings` of a parsed MQM error table (``category`` and ``severity``), else of ESA scores."""
    lowered = [h.strip().lower() for h in table.header]
    if "severity" in lowered and "category" in lowered:
        return _read_mqm(table, lowered, n_segments)
    return _read_esa(table, lowered, n_segments)


def _column(lowered: list[str], table: Table, *names: str, required: bool = True) -> int | None:
    for wanted in names:
        if wanted in lowered:
            return lowered.index(wanted)
    if required:
        raise InputError(table.name, f"missing column {names[0]}; found columns {quote_names(table.header)}", 1)
    return None


def _no_scores() -> pd.DataFrame:
    return pd.DataFrame({"seg": pd.Series(dtype="int64"), "system": pd.Series(dtype=object),
                         "score": pd.Series(dtype="float64")})


def _read_mqm(table: Table, lowered: list[str], n_segments: int | None) -> Ratings:
    at = {key: _column(lowered, table, key) for key in ("system", "seg_id", "category", "severity")}
    rater_at = _column(lowered, table, "rater", required=False)
    target_at = _column(lowered, table, "target", "target_with_error_span", required=False)
    source_at = _column(lowered, table, "source", "source_with_error_span", required=False)
    marked_in = [(side, column) for side, column in (("target", target_at), ("source", source_at)) if column is not None]
    rows = []
    for row, line in zip(table.rows, table.lines):
        system = row[at["system"]].strip()
        if not system:
            raise InputError(table.name, "the system name is empty", line)
        seg = parse_seg_id(row[at["seg_id"]], table, line, n_segments) - 1
        rater = row[rater_at].strip() if rater_at is not None else ""
        category, severity = row[at["category"]].strip(), row[at["severity"]].strip()
        if not severity:
            raise InputError(table.name, "the severity is empty (a clean output is marked No-error)", line)
        # located by its <v> mark in the target, else in the source, else nowhere
        side, span = next(((side, span) for side, span in ((s, _marked_span(row[c])) for s, c in marked_in)
                           if span is not None), ("", (-1, -1)))
        rows.append((seg, system, rater, side, span[0], span[1], severity, category, True, table.name, line))
    frame = error_rows_frame(rows)
    return Ratings(_no_scores(), frame, frame[RATED_COLUMNS].drop_duplicates(ignore_index=True))  # in file order


def _read_esa(table: Table, lowered: list[str], n_segments: int | None) -> Ratings:
    system_at = _column(lowered, table, "system")
    seg_at = _column(lowered, table, "seg_id", "line_id", "segment_id")
    score_at = _column(lowered, table, "score", "esa_score")
    rater_at = _column(lowered, table, "rater", "annotator", required=False)
    spans_at = _column(lowered, table, "error_spans", "errors", required=False)
    scores: dict[tuple[str, int], list[float]] = {}
    rows, rated = [], []
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
        for start, end, severity, category in _esa_spans(raw, table, line):
            rows.append((seg, system, rater, "target", start, end, severity, category, False, table.name, line))
    frame = pd.DataFrame([(seg, system, sum(v) / len(v)) for (system, seg), v in scores.items()],
                         columns=["seg", "system", "score"])
    return Ratings(frame.sort_values(["system", "seg"], ignore_index=True), error_rows_frame(rows), rated_frame(rated))


def _esa_spans(raw: str, table: Table, line: int) -> list[tuple[int, int, str, str]]:
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
        if not severity.strip():
            raise InputError(table.name, f"error span {quote(json.dumps(item))} has an empty severity", line)
        out.append((start, end, severity, str(item.get("category", ""))))
    return out


def with_ratings(evalset: EvalSet, ratings: Ratings, display: str, *, replace_scores: bool = False) -> EvalSet:
    """``evalset`` with the error rows and rated outputs of ``ratings`` added.

    They go to ``EvalSet.error_rows`` and ``EvalSet.rated``, weighed when an analysis asks
    (:func:`mtdiag.io.error_weights.weighed`); the scores the file gives (ESA) become the set's human scores when it
    has none. ``replace_scores``: the file is the set's human scores — they replace any it had (its own scores, else
    the ones its errors give), and the rows read before no longer give scores. Systems that are not loaded give a
    warning."""
    warnings = list(evalset.warnings)
    unknown = sorted((set(ratings.rows["system"]) | set(ratings.scores["system"])) - set(evalset.systems))
    if unknown:
        warnings.append(f"{display}: annotations for systems that are not loaded ({quote_names(unknown)}) match no output")
    before = evalset.error_rows
    if replace_scores and before is not None:
        before = before.assign(scored=False)
    rows = ratings.rows if before is None else pd.concat([before, ratings.rows], ignore_index=True)
    rated = ratings.rated if evalset.rated is None else pd.concat([evalset.rated, ratings.rated], ignore_index=True)
    keep = evalset.human is not None and len(evalset.human) and not replace_scores
    human = evalset.human if keep else (ratings.scores if len(ratings.scores) else None)
    return replace(evalset, human=human, error_rows=rows, rated=rated, annotations=None, warnings=tuple(warnings))


def with_error_annotations(evalset: EvalSet, source: Source, name: str | None = None, *,
                           limits: Limits = DEFAULT_LIMITS) -> EvalSet:
    """``evalset`` with the error rows of an MQM/ESA file or a Pearmut log added (:func:`with_ratings`).

    The scores their errors give are the set's human scores where it has none given, under the scheme an analysis weighs
    them by (:func:`mtdiag.io.error_weights.weighed`)."""
    ratings = read_ratings(source, name, evalset.n_segments, limits=limits, outputs=evalset.hyps)
    return with_ratings(evalset, ratings, name or (source[0] if isinstance(source, tuple) else str(source)))
