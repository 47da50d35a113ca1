"""Error spans predicted by a metric (xCOMET and other explainable metrics): :func:`read_metric_spans`.

Three shapes of one JSON file (told apart by their first character and keys):

- a **JSON list** of records, or **JSONL** (one record per line): ``{"system", "seg_id", "error_spans": [{"start",
  "end", "severity"[, "text"][, "confidence"]}, ...]}`` — ``errors`` is accepted for ``error_spans``,
  ``segment_id``/``line_id`` for ``seg_id`` (1-based, as everywhere), and an optional ``metric`` names the metric
  (else the name given to the reader, by default ``xcomet``);
- the output of **``comet-score --to_json``**: an object keyed by system (the translation file's path: its file
  name without the extension is the system's name when the path itself is not a loaded system) whose values are
  lists of records in segment order, each with ``mt`` and ``errors`` (or ``error_spans``).

Offsets are **characters** of the system output (Python string indices: ``output[start:end]``), as xCOMET gives
them — not UTF-8 bytes. Each span is checked against the loaded output of its system and segment (or, for a system
that is not loaded, the record's ``mt``): negative or reversed offsets, an end past the output's end, and a
``text`` that differs from ``output[start:end]`` are refused with an :class:`InputError` naming the file and the
line of the record; when the UTF-8 byte slice matches the ``text`` instead, the message says the offsets look like
bytes. A record whose ``mt`` differs from the loaded output is refused too (its offsets would point elsewhere), and
so are offsets past the segment-character limit, a ``confidence`` outside 0-1 and a lone surrogate escape in any
string (:func:`mtdiag.io.parsing.refuse_lone_surrogates`).
Severity is ``minor``, ``major`` or ``critical`` (any case). Systems that are not loaded give a warning, as with
:func:`mtdiag.io.with_error_annotations`.

A ``score`` (or ``COMET``, ``xcomet``, …) field is **not read**: these files give spans; segment scores come with
``--scores`` (a TSV/CSV/JSONL of ``system, seg_id`` and one column per metric, :mod:`mtdiag.io.scores`) — a
warning says so when a file carries scores.

The spans are a long frame :data:`METRIC_SPAN_COLUMNS` kept in ``EvalSet.metric_spans``, apart from the human
``annotations``: they never become human scores, human error categories or buckets.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import PurePath
from typing import Iterator, Mapping, Sequence

import pandas as pd

from mtdiag.core.errors import InputError
from mtdiag.io.parsing import check_columns, json_line, parse_seg_id, refuse_lone_surrogates
from mtdiag.io.scores import metric_key
from mtdiag.io.text import DEFAULT_LIMITS, Limits, Source, decode_text, quote, quote_names, read_counted

METRIC_SPAN_COLUMNS = ["seg", "system", "metric", "start", "end", "severity", "confidence", "text"]
SEVERITIES = ("minor", "major", "critical")
DEFAULT_METRIC = "xcomet"
_SPAN_KEYS = ("error_spans", "errors")
_SEG_KEYS = ("seg_id", "segment_id", "line_id")
_SCORE_KEYS = ("score", "comet", "xcomet", "xcomet_score", "metricx")
_WHITESPACE = " \t\n\r"


class _Named:
    """What :func:`mtdiag.io.parsing.parse_seg_id` needs of a table: its display name."""

    def __init__(self, name: str) -> None:
        self.name = name


class _Lines:
    """Line numbers of positions in a text, found moving forward (linear over the whole file)."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line = text, 0, 1

    def at(self, pos: int) -> int:
        if pos < self.pos:
            self.pos, self.line = 0, 1
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WHITESPACE:
        pos += 1
    return pos


def _decode(decoder: json.JSONDecoder, text: str, pos: int, display: str, lines: _Lines, *, whole: bool = False):
    """One JSON value at ``pos``: (value, end); syntax errors, huge numbers, deep nesting and lone surrogates name
    the line (the ``whole`` document, decoded only to tell its shape, is searched for surrogates record by record
    later, to name the record's line)."""
    try:
        value, end = decoder.raw_decode(text, pos)
    except json.JSONDecodeError as error:
        raise InputError(display, f"not valid JSON ({error.msg} at column {error.colno})", error.lineno) from None
    except ValueError:
        raise InputError(display, "not readable JSON (a number has too many digits)", lines.at(pos)) from None
    except RecursionError:
        raise InputError(display, "not readable JSON (nested too deeply)", lines.at(pos)) from None
    if not whole:
        refuse_lone_surrogates(value, text[pos:end], display, lines.at(pos))
    return value, end


def _expect(text: str, pos: int, char: str, display: str, lines: _Lines) -> int:
    pos = _skip(text, pos)
    if pos >= len(text) or text[pos] != char:
        found = "the end of the file" if pos >= len(text) else quote(text[pos])
        raise InputError(display, f"not valid JSON (expected {char!r}, found {found})", lines.at(pos))
    return pos + 1


def _array(decoder, text: str, pos: int, display: str, lines: _Lines) -> tuple[list[tuple[object, int]], int]:
    """The items of the JSON array opening at ``pos`` as (item, line of its start), and the position after ``]``."""
    pos = _skip(text, _expect(text, pos, "[", display, lines))
    items: list[tuple[object, int]] = []
    if pos < len(text) and text[pos] == "]":
        return items, pos + 1
    while True:
        pos = _skip(text, pos)
        line = lines.at(pos)
        item, pos = _decode(decoder, text, pos, display, lines)
        items.append((item, line))
        pos = _skip(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos += 1
            continue
        return items, _expect(text, pos, "]", display, lines)


def _records(text: str, display: str) -> Iterator[tuple[object, int, str | None, int | None]]:
    """Every record of the file as (record, line, system key of the comet-score shape or None, its 0-based
    position in that system's list or None)."""
    decoder = json.JSONDecoder()
    lines = _Lines(text)
    start = _skip(text, 0)
    if start < len(text) and text[start] == "[":
        items, end = _array(decoder, text, start, display, lines)
        _nothing_after(text, end, display, lines)
        for item, line in items:
            yield item, line, None, None
        return
    first, end = _decode(decoder, text, start, display, lines, whole=True)
    if (_skip(text, end) >= len(text) and isinstance(first, dict) and first
            and all(isinstance(v, list) for v in first.values())):
        yield from _comet_records(decoder, text, start, display, lines)
        return
    for number, raw in enumerate(text.split("\n"), start=1):  # JSONL: one record per line
        if not raw.strip():
            continue
        yield json_line(raw, display, number), number, None, None


def _comet_records(decoder, text: str, pos: int, display: str, lines: _Lines):
    """The records of ``comet-score --to_json`` output: ``{system path: [record per segment, ...], ...}``."""
    pos = _skip(text, _expect(text, pos, "{", display, lines))
    while pos < len(text) and text[pos] != "}":
        key, pos = _decode(decoder, text, pos, display, lines)
        pos = _expect(text, pos, ":", display, lines)
        items, pos = _array(decoder, text, pos, display, lines)
        for index, (item, line) in enumerate(items):
            yield item, line, str(key), index
        pos = _skip(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos = _skip(text, pos + 1)


def _nothing_after(text: str, end: int, display: str, lines: _Lines) -> None:
    rest = _skip(text, end)
    if rest < len(text):
        raise InputError(display, "not valid JSON (extra data after the list)", lines.at(rest))


def _system_name(key: str, systems: Sequence[str]) -> str:
    """A comet-score key (a file path) as a system: the key itself when loaded, else its file name, else that name
    without its extension (``outputs/sys1.txt`` → ``sys1``)."""
    if key in systems:
        return key
    name = PurePath(key).name
    if name in systems:
        return name
    return PurePath(key).stem or key


def _offset(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _confidence(value: object, display: str, line: int, where: str) -> float:
    """A span's confidence, a probability from 0 to 1 (``docs/spans.md``), as a float (NaN when absent); anything
    else is refused — an integer of any size is compared exactly, never converted to a float first."""
    if value is None:
        return float("nan")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:  # NaN fails too
        raise InputError(display, f"{where}: confidence {quote(json.dumps(value))} is not a number from 0 to 1", line)
    return float(value)


def _check_text(output: str, start: int, end: int, text: object, display: str, line: int, where: str) -> None:
    """Refuse a span past the output or whose ``text`` is not ``output[start:end]`` (saying so when the offsets
    look like UTF-8 byte offsets)."""
    def bytes_note() -> str:  # only for a span being refused: the UTF-8 bytes are not encoded for every span
        as_bytes = output.encode("utf-8")
        byte_text = as_bytes[start:end].decode("utf-8", errors="replace") if end <= len(as_bytes) else None
        looks_like_bytes = isinstance(text, str) and text and byte_text == text
        return ("; the offsets look like UTF-8 bytes, not characters: give character offsets (Python string indices)"
                if looks_like_bytes else "")

    if end > len(output):
        raise InputError(display, f"{where}: end {end} is past the output's end ({len(output)} characters)"
                                  f"{bytes_note()}", line)
    if isinstance(text, str) and output[start:end] != text:
        raise InputError(display, f"{where}: text {quote(text)} is not the output's characters {start}-{end} "
                                  f"({quote(output[start:end])}){bytes_note()}", line)


def read_metric_spans(source: Source, name: str | None = None,
                      outputs: Mapping[str, Sequence[str]] | None = None, n_segments: int | None = None, *,
                      metric: str | None = None, limits: Limits = DEFAULT_LIMITS) -> tuple[pd.DataFrame, list[str]]:
    """(spans :data:`METRIC_SPAN_COLUMNS`, warnings) of a metric-span file (see the module docstring).

    ``outputs`` maps each loaded system to its outputs (0-based segments), against which offsets are checked; ``metric``
    names the metric of records without a ``metric`` field (default ``xcomet``)."""
    data, display, n_lines = read_counted(source, name, limits)
    text = decode_text(data, display)
    del data
    outputs = outputs or {}
    systems = list(outputs)
    default_metric = metric_key(metric or DEFAULT_METRIC)
    rows: list[tuple] = []
    unknown: dict[str, None] = {}
    scored = False
    cells = 0
    seg_table = _Named(display)
    metrics: dict[str, None] = {}  # each a column of the span tables: bounded like a table's columns
    keys: dict[str, str] = {}  # each metric name made a key once, not once per record
    for record, line, key, index in _records(text, display):
        if not isinstance(record, dict):
            raise InputError(display, "expected a JSON object {system, seg_id, error_spans}", line)
        lowered = {str(k).strip().lower(): v for k, v in record.items()}
        scored = scored or any(k in lowered for k in _SCORE_KEYS)
        system, seg = _record_place(lowered, key, index, systems, n_segments, seg_table, display, line)
        spans = next((lowered[k] for k in _SPAN_KEYS if k in lowered), None)
        if spans is None:
            spans = []
        if not isinstance(spans, list):
            raise InputError(display, "error_spans must be a list of {start, end, severity}", line)
        cells += 1 + len(spans)
        if cells > limits.max_cells:
            raise limits.exceeded(display, "max_cells", f"more than {limits.max_cells:,} records and spans", line)
        name_here = lowered.get("metric")
        span_metric = (keys.get(name_here) or keys.setdefault(name_here, metric_key(name_here))
                       if isinstance(name_here, str) and name_here.strip() else default_metric)
        if span_metric not in metrics:
            metrics[span_metric] = None
            check_columns(display, len(metrics), limits, line, what="metrics")
        where = f"system {quote(system)} seg_id {seg + 1}"
        output = _record_output(lowered.get("mt"), outputs.get(system), seg, where, display, line, limits)
        if system not in outputs:
            unknown[system] = None
        for number, span in enumerate(spans, start=1):
            start, end, severity, confidence, shown = _span(span, output, f"{where}, span {number}", display, line,
                                                            limits)
            rows.append((seg, system, span_metric, start, end, severity, confidence, shown))
    del n_lines
    warnings = []
    if unknown and outputs:
        warnings.append(f"{display}: metric spans for systems that are not loaded ({quote_names(sorted(unknown))}) "
                        "match no output")
    if scored:
        warnings.append(f"{display}: the scores in this file are not read (it gives error spans); give segment "
                        "scores with --scores (system, seg_id, one column per metric)")
    return _frame(rows), warnings


def _record_place(lowered: dict, key: str | None, index: int, systems: list[str], n_segments: int | None,
                  seg_table: "_Named", display: str, line: int) -> tuple[str, int]:
    """The (system, 0-based segment) a record is about: from its place in a file keyed by system (``key``, the
    record's ``index`` in that system's list), else from its ``system`` and ``seg_id`` fields."""
    if key is not None:
        system = _system_name(key, systems)
        if n_segments is not None and index >= n_segments:
            raise InputError(display, f"system {quote(key)} has more than the set's {n_segments:,} segments", line)
        return system, index
    system = lowered.get("system")
    if not isinstance(system, str) or not system.strip():
        raise InputError(display, "the record has no system name (\"system\")", line)
    seg_value = next((lowered[k] for k in _SEG_KEYS if k in lowered), None)
    if seg_value is None or isinstance(seg_value, (bool, float, list, dict)):
        raise InputError(display, "the record has no whole-number seg_id (1-based)", line)
    return system.strip(), parse_seg_id(str(seg_value), seg_table, line, n_segments) - 1


def _record_output(mt, loaded: Sequence[str] | None, seg: int, where: str, display: str, line: int,
                   limits: Limits) -> str | None:
    """The output a record's offsets point into: the loaded system's (``loaded``, checked against the record's
    ``mt`` when it gives one), else the record's ``mt`` (None when it has none: the offsets cannot be checked)."""
    if mt is not None and not isinstance(mt, str):
        raise InputError(display, "mt must be the output text (a string)", line)
    if isinstance(mt, str) and len(mt) > limits.max_segment_chars:
        raise limits.exceeded(display, "max_segment_chars", f"an mt of {len(mt):,} characters", line)
    if loaded is None:
        return mt
    if seg >= len(loaded):
        raise InputError(display, f"{where}: the system has {len(loaded):,} segments", line)
    output = str(loaded[seg])
    if mt is not None and mt != output:
        raise InputError(display, f"{where}: mt {quote(mt)} is not the loaded output {quote(output)} "
                                  "(the offsets would point elsewhere)", line)
    return output


def _span(span, output: str | None, at: str, display: str, line: int,
          limits: Limits) -> tuple[int, int, str, float, str]:
    """One error span of a record, checked: ``(start, end, severity, confidence, text)`` — the text the output
    holds at those offsets when the output is known."""
    if not isinstance(span, dict):
        raise InputError(display, f"{at}: each error span must be an object {{start, end, severity}}", line)
    span = {str(k).strip().lower(): v for k, v in span.items()}
    start, end = _offset(span.get("start")), _offset(span.get("end"))
    if start is None or end is None or start < 0 or end < start or end > limits.max_segment_chars:
        raise InputError(display, f"{at}: start and end must be character offsets with 0 <= start <= end "
                                  f"<= {limits.max_segment_chars:,} (the longest segment read; found "
                                  f"{quote(json.dumps(span.get('start')))}, "
                                  f"{quote(json.dumps(span.get('end')))})", line)
    severity = span.get("severity", "minor")
    if not isinstance(severity, str) or severity.strip().lower() not in SEVERITIES:
        raise InputError(display, f"{at}: severity {quote(str(severity))}: expected minor, major or "
                                  "critical", line)
    confidence = _confidence(span.get("confidence"), display, line, at)
    shown = span.get("text")
    if shown is not None and not isinstance(shown, str):
        raise InputError(display, f"{at}: text must be a string", line)
    if isinstance(shown, str) and len(shown) > limits.max_segment_chars:
        raise limits.exceeded(display, "max_segment_chars", f"a span text of {len(shown):,} characters", line)
    if output is not None:
        _check_text(output, start, end, shown, display, line, at)
        shown = output[start:end]
    return start, end, severity.strip().lower(), confidence, shown or ""


def _frame(rows: list[tuple]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=METRIC_SPAN_COLUMNS)
    return frame.astype({"seg": "int64", "system": object, "metric": object, "start": "int64", "end": "int64",
                         "severity": object, "confidence": "float64", "text": object})


def with_metric_spans(evalset, source: Source, name: str | None = None, *, metric: str | None = None,
                      limits: Limits = DEFAULT_LIMITS):
    """``evalset`` with the spans of a metric-span file added to ``EvalSet.metric_spans`` (warnings appended).

    The human scores and error annotations are left as they are."""
    outputs = {system: evalset.hyps[system].tolist() for system in evalset.systems}
    spans, warnings = read_metric_spans(source, name, outputs, evalset.n_segments, metric=metric, limits=limits)
    merged = spans if evalset.metric_spans is None else pd.concat([evalset.metric_spans, spans], ignore_index=True)
    return replace(evalset, metric_spans=merged, warnings=tuple(evalset.warnings) + tuple(warnings))
