"""Pearmut (Zouhar & Kocmi 2026, PyPI ``pearmut``; the human evaluation tool of WMT): its error-span offsets and
the annotation log it writes, read as human scores and human error spans (:func:`read_pearmut_log`).

**Offsets.** Pearmut draws a text one element per character of the JavaScript string (``contentToCharSpans`` in
its ``web/src/utils.ts``: ``/(.)/g`` without the ``u`` flag, ``data-i`` = the match's offset), so its offsets are
**UTF-16 code units**, and an error span ``{"start_i", "end_i"}`` covers the elements ``start_i <= i <= end_i``:
**the end is inclusive** (``annotate.ts``). mtdiag's offsets are Python string indices — code points, the end
exclusive. The two agree on text inside the Basic Multilingual Plane except for the end (``end_i = end - 1``); a
character outside it (an emoji, a rare CJK character) is two code units in Pearmut and one in mtdiag
(:func:`to_pearmut`, :func:`from_pearmut`). Pearmut's special tokens (``[missing]``: an omission) are drawn after
the text with ``data-i = len(text) + k``; a span on one is the zero-width span at the output's end — where WMT23's
error spans and mtdiag's predictions (an empty or truncated output) put an omission — and the reverse.

**The log.** ``PEARMUT_ROOT/data/annotations/<campaign>.jsonl``, one line per submitted document (``app.py``,
``_log_response``): the page's payload ``{"annotation": [per item {model: {"score", "error_spans": [{"start_i",
"end_i", "severity", "category"}], …}}], "item": [the items as the campaign has them], "actions": […]}`` with the
server's ``"user_id"`` and ``"item_i"``. A reset of a user's task writes ``{"user_id", "annotation": "__RESET__"}``
and voids that user's earlier lines; an annotator who goes back and submits a document again writes a new line,
and the last line of a (user, document) is the answer — as Pearmut's own results take it (``utils.py``,
``get_active_db_log``; ``results_export.py``). The management dashboard's download (``annotations.json``) is
``{campaign_id: [the lines]}``; both are read.

**Matching.** Pearmut keeps every extra key of an item, and a page's payload carries the items, so each log line
holds the ids mtdiag's export put into every item (:data:`IDS_KEY`: ``{"seg_id", "systems": {model key: system},
"protocol"}``, :mod:`mtdiag.report.campaign`): the item is matched back to its segment and each model key to its system,
and the output the annotator saw must be the loaded set's (else the log is of another test set: an error).

**Scores.** Under ESA (Kocmi et al. 2024) the annotator's 0–100 score is the segment score; under MQM (Freitag et
al. 2021) the segment score is minus the weighted sum of the annotator's errors, weighted and scored as an MQM
error file is, when the analysis weighs the rows (the chosen scheme of :mod:`mtdiag.io.error_weights`,
:func:`~mtdiag.io.error_weights.weighed`): the reader keeps each span as an error row, and each output an MQM
annotator rated as a rating row without an error (it weighs 0: a clean output scores 0). A segment's human score is
the mean over its annotators (as for MQM and ESA files); each annotator's errors are kept apart under their Pearmut
user id as the rater, so the per-rater statistics work as for MQM files.

**Work** is linear in the spans: each output's UTF-16 boundaries are computed once and its spans located together
(one vectorised binary search per output, :func:`spans_from_pearmut`); nothing is weighed while reading.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from mtdiag.core.errors import InputError
from mtdiag.io.parsing import json_line, refuse_lone_surrogates
from mtdiag.io.ratings import ERROR_COLUMNS, error_rows_frame, rated_frame
from mtdiag.io.text import DEFAULT_LIMITS, Limits, Source, decode_text, quote, read_counted, split_lines, unpack

IDS_KEY = "mtdiag"
"""The key of the ids mtdiag's export puts into every Pearmut item (Pearmut stores any extra key in its log)."""
PROTOCOLS = {"esa": "ESA", "mqm": "MQM"}
"""mtdiag's protocol names and Pearmut's (``info.protocol``)."""
RESET_MARKER = "__RESET__"  # pearmut.utils.RESET_MARKER
LOG_SUFFIXES = (".jsonl", ".ndjson", ".json")
_NOT_CAMPAIGN_ITEMS = ("welcome_", "random_", "goodbye_")  # Pearmut's tutorial, attention-check and goodbye pages


# --------------------------------------------------------------------------------------------------- offsets


def utf16_boundaries(text: str) -> np.ndarray:
    """The UTF-16 offset of every code-point boundary of ``text``.

    ``len(text) + 1`` values, from 0 to the text's length in UTF-16 code units (a character outside the Basic
    Multilingual Plane is two units)."""
    wide = np.frombuffer(text.encode("utf-32-le"), dtype="<u4") > 0xFFFF
    return np.concatenate([[0], np.cumsum(1 + wide.astype(np.int64))])


def to_pearmut(text: str, start, end) -> tuple[np.ndarray, np.ndarray]:
    """mtdiag's character spans of ``text`` as Pearmut's ``(start_i, end_i)``.

    mtdiag's spans are in code points, ``end`` exclusive (scalars or arrays); Pearmut's are in UTF-16 code units,
    ``end_i`` inclusive — the last unit of the span's last character. A zero-width span (an omission) marks the one unit
    at its start, as WMT23's rule marks a zero-width span's start (:mod:`mtdiag.spans.agreement`): at the text's end
    that is Pearmut's ``[missing]`` token."""
    bounds = utf16_boundaries(text)
    start, end = np.asarray(start, dtype=np.int64), np.asarray(end, dtype=np.int64)
    return bounds[start], np.where(end > start, bounds[end] - 1, bounds[start])


def from_pearmut(text: str, start_i: int, end_i: int) -> tuple[int, int]:
    """Pearmut's span ``start_i..end_i`` of ``text`` as mtdiag's ``(start, end)``.

    Pearmut's offsets are UTF-16 units, inclusive; mtdiag's are code points, end exclusive: every character a unit of
    the span belongs to. A span on Pearmut's ``[missing]`` token (drawn after the text, at the text's length in units:
    an omission) is the zero-width span at the text's end, where WMT23 and mtdiag's predictions put an omission; a span
    that runs from the text onto it ends at the text's end. ``ValueError`` for offsets that are not a span, or that lie
    past ``[missing]`` (no element of Pearmut's page has them: a log edited or of another text)."""
    problem = span_problem(text, start_i, end_i)
    if problem:
        raise ValueError(problem)
    start, end = spans_from_pearmut(text, [start_i], [end_i])
    return int(start[0]), int(end[0])


def utf16_units(text: str) -> int:
    """The length of ``text`` in UTF-16 code units: the offset of Pearmut's ``[missing]`` token."""
    return len(text.encode("utf-16-le")) // 2


def span_problem(text: str, start_i: int, end_i: int) -> str | None:
    """Why ``start_i..end_i`` is no span of Pearmut's page for ``text``, else None.

    Either not ``0 <= start_i <= end_i``, or past the ``[missing]`` token."""
    if start_i < 0 or end_i < start_i:
        return f"start_i {_number(start_i)} and end_i {_number(end_i)} are not a span (0 <= start_i <= end_i)"
    units = utf16_units(text)
    if end_i > units:
        return (f"start_i {_number(start_i)} and end_i {_number(end_i)} lie past the output's end (it has "
                f"{units:,} UTF-16 units; Pearmut's [missing] token is {units})")
    return None


def spans_from_pearmut(text: str, start_i, end_i) -> tuple[np.ndarray, np.ndarray]:
    """:func:`from_pearmut` of many spans of one text at once.

    The offsets are whole numbers, each a span of the page (:func:`span_problem`, checked by the caller): one vectorised
    binary search over the text's UTF-16 boundaries."""
    bounds = utf16_boundaries(text)
    last = int(bounds[-1])
    start_i = np.minimum(np.asarray(start_i, dtype=np.int64), last)
    end_i = np.minimum(np.asarray(end_i, dtype=np.int64), max(last - 1, 0))  # onto [missing]: to the text's end
    past = start_i >= last
    start = np.searchsorted(bounds, start_i, side="right") - 1
    end = np.searchsorted(bounds, end_i, side="right")
    return np.where(past, len(text), start), np.where(past, len(text), end)


def _number(value: int) -> str:
    """A whole number as a message quotes it: at most 20 digits (a log may hold a 400-digit one)."""
    text = str(value)
    return text if len(text) <= 20 else f"{text[:20]}… ({len(text)} digits)"


# --------------------------------------------------------------------------------------------------- the log


@dataclass(frozen=True)
class Entry:
    """One line of a Pearmut log: its object and where it is.

    ``line``: the line of the file, or for the dashboard's download ``where``: the campaign and the entry's position."""

    value: dict
    line: int | None
    where: str = ""

    def error(self, display: str, detail: str) -> InputError:
        """An :class:`InputError` of ``display`` about this entry: ``detail``, after its ``where``, at its ``line``."""
        return InputError(display, f"{self.where}: {detail}" if self.where else detail, self.line)


def is_log_object(value: object) -> bool:
    """Whether one JSON object is a line of a Pearmut annotation log.

    A line has an ``annotation`` and the ``user_id`` the server adds."""
    return isinstance(value, dict) and "annotation" in value and "user_id" in value


def sniff_log(source: Source, name: str | None = None, *,
              limits: Limits = DEFAULT_LIMITS) -> tuple[Source, tuple[str, list[Entry]] | None]:
    """``(source, log)``: a Pearmut log's entries when ``source`` is one, else what to parse instead.

    When ``source`` (named ``.jsonl``, ``.ndjson`` or ``.json``) is a Pearmut annotation log or the dashboard's
    ``annotations.json``, ``log`` is ``(display name, its entries)``; else None, and ``source`` is what to parse instead
    (the bytes already read, so a file is read once; any other source unread)."""
    display = name or unpack(source, "input")[1]
    if not display.lower().endswith(LOG_SUFFIXES):
        return source, None
    data, display, _ = read_counted(source, name, limits)
    text = decode_text(data, display)
    read = (display, data)
    if display.lower().endswith(".json"):
        return read, _downloaded(text, display)
    lines = [(number, raw) for number, raw in enumerate(split_lines(text), start=1) if raw.strip()]
    try:
        first = json.loads(lines[0][1]) if lines else None
    except (ValueError, RecursionError):
        return read, None  # not this format: the table reader says what is wrong
    if not is_log_object(first):
        return read, None
    refuse_lone_surrogates(first, lines[0][1], display, lines[0][0])  # the first line is parsed once
    return read, (display, [Entry(first, lines[0][0])]
                  + [Entry(json_line(raw, display, number), number) for number, raw in lines[1:]])


def _downloaded(text: str, display: str) -> tuple[str, list[Entry]] | None:
    """The entries of the dashboard's ``annotations.json`` (``{campaign_id: [lines]}``), None for other JSON."""
    value = json_line(text, display, None)
    if not isinstance(value, dict) or not value or not all(isinstance(v, list) for v in value.values()):
        return None
    entries = [Entry(entry, None, f"campaign {quote(campaign)}, entry {k}") for campaign, lines in value.items()
               for k, entry in enumerate(lines, start=1)]
    if not all(is_log_object(entry.value) for entry in entries):
        return None
    return display, entries


def answers(entries: list[Entry], display: str) -> list[Entry]:
    """The entries that are answers, in log order.

    Every user's lines after their last reset (the reset lines dropped), and of several lines of one (user, document)
    the last; Pearmut's tutorial, attention-check and goodbye pages left out."""
    for entry in entries:
        if not is_log_object(entry.value):
            raise entry.error(display, "not a line of a Pearmut annotation log (expected an object with "
                                       "'annotation' and 'user_id')")
    last_reset = {str(e.value["user_id"]): i for i, e in enumerate(entries) if e.value["annotation"] == RESET_MARKER}
    latest: dict[tuple[str, str], int] = {}
    for i, entry in enumerate(entries):
        user = str(entry.value["user_id"])
        if entry.value["annotation"] == RESET_MARKER or i <= last_reset.get(user, -1):
            continue
        item_i = entry.value.get("item_i")
        if isinstance(item_i, str) and item_i.startswith(_NOT_CAMPAIGN_ITEMS):
            continue
        latest[(user, json.dumps(item_i))] = i
    return [entries[i] for i in sorted(latest.values())]


def read_pearmut_log(display: str, entries: list[Entry], n_segments: int | None = None,
                     outputs: pd.DataFrame | None = None) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The ESA scores, error rows and rated outputs of a Pearmut log's entries (:func:`sniff_log`).

    Returns (the ESA scores given ``seg, system, score``, the error rows :data:`mtdiag.io.ratings.ERROR_COLUMNS`, the
    rated outputs ``seg, system, rater``); ``outputs`` (the loaded set's ``hyps``) checks that each annotated output is
    the set's. Every problem names the file and the line."""
    scores: dict[tuple[str, int, str], float] = {}  # ESA: the annotator's score
    rows: dict[str, list] = {column: [] for column in ERROR_COLUMNS}
    rated: list[tuple[str, int, str]] = []
    for entry in answers(entries, display):
        items, annotation = entry.value.get("item"), entry.value["annotation"]
        if not isinstance(items, list) or not isinstance(annotation, list) or len(items) != len(annotation):
            raise entry.error(display, "'item' and 'annotation' must be lists of the same length (one per item of "
                                       "the page)")
        rater = str(entry.value["user_id"])
        for item, answer in zip(items, annotation):
            if answer is None:  # a skipped item
                continue
            seg, systems, protocol = _ids(item, entry, display, n_segments)
            if not isinstance(answer, dict):
                raise entry.error(display, "an item's annotation must be an object {model: {score, error_spans}}")
            for key, response in answer.items():
                system, text = _output(item, systems, key, entry, display)
                if outputs is not None and system in outputs.columns and str(outputs.at[seg, system]) != text:
                    raise entry.error(display, f"the campaign showed {quote(system)}'s output of segment {seg + 1} "
                                               f"as {quote(text)}, the loaded set has "
                                               f"{quote(str(outputs.at[seg, system]))}: a log of another test set?")
                if not isinstance(response, dict):
                    raise entry.error(display, f"the annotation of {quote(key)} must be an object")
                mqm = protocol == "MQM"
                spans = _span_rows(response.get("error_spans") or [], text, mqm, entry, display, key)
                if mqm:  # rated, errors or not: a clean output scores 0 (a rating row, without an error)
                    spans = {"start": [*spans["start"], -1], "end": [*spans["end"], -1],
                             "severity": [*spans["severity"], ""], "category": [*spans["category"], ""]}
                _add_rows(rows, spans, seg=seg, system=system, rater=rater, scored=mqm, file=display,
                          line=entry.line or -1)
                rated.append((system, seg, rater))
                if not mqm:
                    score = _score(response.get("score"), entry, display)
                    if score is not None:
                        scores[(system, seg, rater)] = score + 0.0
    by_pair: dict[tuple[str, int], list[float]] = {}
    for (system, seg, _), score in scores.items():
        by_pair.setdefault((system, seg), []).append(score)
    esa = pd.DataFrame([(seg, system, sum(v) / len(v)) for (system, seg), v in by_pair.items()],
                       columns=["seg", "system", "score"]).astype({"seg": "int64", "score": "float64"})
    return esa.sort_values(["system", "seg"], ignore_index=True), error_rows_frame(rows), rated_frame(rated)


def _add_rows(rows: dict[str, list], spans: dict[str, list], **same) -> None:
    """Append one output's spans to the columns ``rows``: ``spans``' columns, ``same``'s values on every row and
    each span on the target side (a rating row without an error on none)."""
    n = len(spans["start"])
    for column, values in spans.items():
        rows[column] += values
    rows["side"] += ["target" if severity else "" for severity in spans["severity"]]
    for column, value in same.items():
        rows[column] += [value] * n


def _span_rows(marked: object, text: str, mqm: bool, entry: Entry, display: str, key: str) -> dict[str, list]:
    """The columns ``start, end, severity, category`` of Pearmut's error spans of one output's ``text``, located
    together (:func:`spans_from_pearmut`); every span is checked first, the first bad one an error naming the line.
    Checks and columns are comprehensions over the spans: no Python function call per span."""
    if not isinstance(marked, list):
        raise entry.error(display, f"the error spans of {quote(key)} must be a list")
    if not all(isinstance(span, dict) for span in marked):
        raise entry.error(display, "an error span must be an object {start_i, end_i, severity, category}")
    starts, ends = [span.get("start_i") for span in marked], [span.get("end_i") for span in marked]
    severities = [span.get("severity") for span in marked]
    units = utf16_units(text)
    if not (all(type(v) is int for v in starts) and all(type(v) is int for v in ends)  # bool is no offset
            and all(0 <= a <= b <= units for a, b in zip(starts, ends))
            and all(type(v) is str and v for v in severities)):
        _refuse_first_bad_span(marked, text, entry, display)
    start, end = spans_from_pearmut(text, starts, ends) if marked else ([], [])
    categories = ([v if isinstance(v, str) else "" for v in (span.get("category") for span in marked)] if mqm
                  else [""] * len(marked))  # ESA has no categories (Kocmi et al. 2024)
    return without_overlaps({"start": list(start), "end": list(end), "severity": [v.lower() for v in severities],
                             "category": categories})


SEVERITY_RANK = {"critical": 3, "major": 2, "minor": 1}  # the heaviest of overlapping spans; any other: 0


def without_overlaps(spans: dict[str, list]) -> dict[str, list]:
    """One annotator's spans of one output with those that overlap merged into their union.

    The spans have columns ``start, end, severity, category``. Spans overlap when they share a character, or are
    omissions at one place; their union takes the severity and category of the heaviest of them (:data:`SEVERITY_RANK`;
    a tie: the first by start). Pearmut's page never lets a character belong to two spans, so overlapping spans come
    from an edited log or another tool's pre-filled spans; counted apart they would charge the same characters twice.
    Spans that only touch stay apart. In order of their start; vectorised over the spans."""
    n = len(spans["start"])
    if n < 2:
        return spans
    start, end = np.asarray(spans["start"], dtype=np.int64), np.asarray(spans["end"], dtype=np.int64)
    order = np.lexsort((end, start))
    start, end = start[order], end[order]
    reach = np.maximum.accumulate(end)
    point = start == end
    joins = (start[1:] < reach[:-1]) | (point[1:] & point[:-1] & (start[1:] == start[:-1]))
    group = np.concatenate([[0], np.cumsum(~joins)])
    rank = np.array([SEVERITY_RANK.get(spans["severity"][i], 0) for i in order])
    heaviest = np.lexsort((np.arange(n), -rank, group))  # per group, the heaviest first
    first = heaviest[np.concatenate([[True], group[heaviest][1:] != group[heaviest][:-1]])]
    begins = np.flatnonzero(np.concatenate([[True], ~joins]))
    return {"start": np.minimum.reduceat(start, begins).tolist(), "end": np.maximum.reduceat(end, begins).tolist(),
            "severity": [spans["severity"][order[i]] for i in first],
            "category": [spans["category"][order[i]] for i in first]}


def _refuse_first_bad_span(marked: list[dict], text: str, entry: Entry, display: str) -> None:
    """The error of the first span of ``marked`` that is no span of ``text``'s page: offsets that are not whole
    numbers, not ``0 <= start_i <= end_i`` or past Pearmut's ``[missing]`` token (:func:`span_problem`), or no
    severity."""
    for span in marked:
        start_i, end_i, severity = span.get("start_i"), span.get("end_i"), span.get("severity")
        if not (type(start_i) is int and type(end_i) is int):
            raise entry.error(display, f"error span {quote(json.dumps(span)[:200])}: start_i and end_i must be whole "
                                       "numbers")
        problem = span_problem(text, start_i, end_i)
        if problem:
            raise entry.error(display, f"error span {quote(json.dumps(span)[:200])}: {problem}")
        if not isinstance(severity, str) or not severity:
            raise entry.error(display, f"error span {quote(json.dumps(span))} has no severity")


def _ids(item: object, entry: Entry, display: str, n_segments: int | None) -> tuple[int, dict, str]:
    """(0-based segment, {model key: system}, Pearmut protocol) of an item mtdiag's export made."""
    ids = item.get(IDS_KEY) if isinstance(item, dict) else None
    if not isinstance(ids, dict):
        raise entry.error(display, f"an item without mtdiag's ids ({quote(IDS_KEY)}): only the log of a campaign "
                                   "made by 'mtdiag pearmut export' (or the Segments page) can be matched to segments")
    seg_id, systems, protocol = ids.get("seg_id"), ids.get("systems"), ids.get("protocol")
    if not isinstance(seg_id, int) or isinstance(seg_id, bool) or seg_id < 1 or (
            n_segments is not None and seg_id > n_segments):
        limit = f" (the set has {n_segments} segments)" if n_segments is not None else ""
        raise entry.error(display, f"seg_id {json.dumps(seg_id)[:40]} is not a segment{limit}")
    if not isinstance(systems, dict) or not all(isinstance(v, str) for v in systems.values()):
        raise entry.error(display, "the ids' 'systems' must map each model key to a system name")
    if protocol not in PROTOCOLS.values():
        raise entry.error(display, f"protocol {quote(json.dumps(protocol))}: expected one of "
                                   f"{', '.join(PROTOCOLS.values())}")
    return seg_id - 1, systems, protocol


def _output(item: dict, systems: dict, key: str, entry: Entry, display: str) -> tuple[str, str]:
    """(system, the output the annotator saw) of one model key of an item."""
    tgt = item.get("tgt")
    if key not in systems or not isinstance(tgt, dict) or not isinstance(tgt.get(key), str):
        raise entry.error(display, f"model {quote(key)} is not an output of the item (its 'tgt' and mtdiag's ids)")
    return systems[key], tgt[key]


def _score(value: object, entry: Entry, display: str) -> float | None:
    """An ESA score: a number from 0 to 100, None when not given."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 100:
        raise entry.error(display, f"score {quote(json.dumps(value))} is not a number from 0 to 100")
    return float(value)


def pearmut_log_path(root: str | Path, campaign_id: str) -> Path:
    """Where Pearmut writes the log of a campaign: ``PEARMUT_ROOT/data/annotations/<campaign_id>.jsonl``."""
    return Path(root) / "data" / "annotations" / f"{campaign_id}.jsonl"
