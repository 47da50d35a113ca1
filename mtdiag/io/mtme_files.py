"""The score, rating and document files of WMT's mt-metrics-eval layout (:mod:`mtdiag.io.mtme`), read as
google-research/mt-metrics-eval reads them (``data.py``: ``ReadScoreFile``, ``ReadDomainScoreFile``;
``ratings.py``: ``ReadRatingFile``):

- **scores** (``*.seg.score``, ``*.sys.score``): one ``SYSTEM SCORE`` per line, split on whitespace; a system's
  lines are its segments in order (``seg``) or its one system score (``sys``); ``None`` is a missing score (kept as
  missing: NaN). **Domain scores** (``*.domain.score``): ``DOMAIN SYSTEM SCORE``.
- **ratings** (``*.seg.rating``): ``SYSTEM<TAB>JSON<TAB>RATER`` or ``SYSTEM<TAB>None``, a system's lines its segments
  in order; the JSON is ``{"errors": [{"start", "end", "category", "severity", "score", "is_source_error"}]}`` —
  character offsets into the output (into the source when ``is_source_error``); ``None`` means not rated, an empty
  error list rated and found error-free.
- **documents** (``LP.docs``): ``DOMAIN DOC`` per segment.

Score files are parsed by pandas' C reader (a WMT23 zh-en metric file is 33,592 lines; a pair brings ~70); a file
it cannot read is scanned again line by line for the message, which names the file and the line.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pandas as pd

from mtdiag.core.errors import InputError
from mtdiag.io.ratings import error_rows_frame, rated_frame
from mtdiag.io.text import Limits, Source, decode_text, quote, read_counted, split_lines

NONE = "None"


def _text(source: Source, display: str, limits: Limits) -> str:
    data, display, _ = read_counted(source, display, limits)
    return decode_text(data, display)


def _scan(text: str, display: str, fields: int) -> None:
    """Find the first line the fast reader could not read and raise its :class:`InputError` (file and line)."""
    shape = "DOMAIN SYSTEM SCORE" if fields == 3 else "SYSTEM SCORE"
    for number, line in enumerate(split_lines(text), 1):
        parts = line.split()
        if len(parts) != fields:
            raise InputError(display, f"expected {shape} (separated by a tab or spaces), found {len(parts)} "
                                      f"field{'s' * (len(parts) != 1)}", number)
        if parts[-1] != NONE:
            try:
                float(parts[-1])
            except ValueError:
                raise InputError(display, f"score {quote(parts[-1])} is not a number (or None)", number) from None
    raise InputError(display, "cannot be read as a score file")


def read_scores(source: Source, display: str, limits: Limits, *, domains: bool = False) -> pd.DataFrame:
    """A score file as a frame ``system``, ``position`` and ``score``, plus ``domain`` first for a domain file.

    ``position``: the line's place among its system's lines, from 0; ``score``: NaN for ``None``; ``domain`` when
    ``domains``. The bytes go to the C reader as they are (UTF-8, a BOM dropped); a file it refuses is decoded and
    scanned for the message."""
    data, display, _ = read_counted(source, display, limits)
    names = ["domain", "system", "score"] if domains else ["system", "score"]
    try:
        frame = pd.read_csv(io.BytesIO(data), sep=r"\s+", header=None, names=names, quoting=csv.QUOTE_NONE,
                            dtype={"domain": "category", "system": "category", "score": np.float64},
                            na_values=[NONE], keep_default_na=False, engine="c", skip_blank_lines=False,
                            encoding="utf-8-sig")
        if frame["system"].isna().any() or (domains and frame["domain"].isna().any()):
            raise ValueError("a line without a system")
    except (ValueError, pd.errors.ParserError):  # UnicodeDecodeError is a ValueError
        _scan(decode_text(data, display), display, len(names))

    codes = frame["system"].cat.codes.to_numpy()
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes, minlength=len(frame["system"].cat.categories))
    position = np.empty(len(codes), dtype=np.int64)
    position[order] = np.arange(len(codes)) - np.repeat(np.cumsum(counts) - counts, counts)
    frame.insert(len(names) - 1, "position", position)
    return frame


def per_system(frame: pd.DataFrame, display: str, expected: int, what: str) -> dict[str, np.ndarray]:
    """``{system: scores}`` of a seg or sys score frame (:func:`read_scores`), each system's in line order.

    An :class:`InputError` when a system has other than ``expected`` lines (``what``: what they should be)."""
    systems = frame["system"].cat.categories
    codes = frame["system"].cat.codes.to_numpy()
    counts = np.bincount(codes, minlength=len(systems))
    wrong = np.flatnonzero((counts != expected) & (counts > 0))
    if len(wrong):
        system, found = systems[wrong[0]], int(counts[wrong[0]])
        raise InputError(display, f"system {quote(system)} has {found:,} score{'s' * (found != 1)}; expected "
                                  f"{expected:,} ({what})")
    order = np.argsort(codes, kind="stable")
    values = frame["score"].to_numpy(dtype=np.float64)[order]
    ends = np.cumsum(counts)
    return {str(system): values[end - count:end] for system, count, end in zip(systems, counts, ends) if count}


def read_documents(source: Source, display: str, limits: Limits, n_segments: int) -> tuple[list[str], list[str]]:
    """(domain, document) of each segment from an ``LP.docs`` file of ``n_segments`` lines."""
    lines = split_lines(_text(source, display, limits))
    if len(lines) != n_segments:
        raise InputError(display, f"has {len(lines):,} lines but the source has {n_segments:,}")
    domains, docs = [], []
    for number, line in enumerate(lines, 1):
        parts = line.split()
        if len(parts) != 2:
            raise InputError(display, f"expected DOMAIN DOC, found {len(parts)} field{'s' * (len(parts) != 1)}",
                             number)
        domains.append(parts[0])
        docs.append(parts[1])
    return domains, docs


def _rating_errors(raw: str, display: str, number: int) -> list[dict]:
    try:
        rating = json.loads(raw)
    except json.JSONDecodeError as error:
        raise InputError(display, f"the rating is not JSON ({error.msg})", number) from None
    errors = rating.get("errors") if isinstance(rating, dict) else None
    if not isinstance(errors, list):
        raise InputError(display, 'expected a rating {"errors": [...]} or None', number)
    return errors


def _span(error, display: str, number: int) -> tuple[str, int, int, str, str]:
    """(side, start, end, severity, category) of one error of a rating."""
    if not isinstance(error, dict):
        raise InputError(display, "an error of the rating is not an object", number)
    start, end = error.get("start"), error.get("end")
    if not isinstance(start, int) or not isinstance(end, int) or isinstance(start, bool) or not 0 <= start <= end:
        raise InputError(display, f"an error's start and end ({start!r}, {end!r}) are no character offsets",
                         number)
    side = "source" if error.get("is_source_error") else "target"
    return side, start, end, str(error.get("severity") or "").lower(), str(error.get("category") or "")


def read_ratings(source: Source, display: str, limits: Limits, n_segments: int,
                 systems: set[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The error rows and rated outputs of a rating file, for the outputs of ``systems`` (others are skipped).

    Returns (error rows :data:`mtdiag.io.ratings.ERROR_COLUMNS` as read, rated outputs ``seg, system, rater``): each
    error a row, and each rated output a rating row without an error (a clean output scores 0). They are weighed like
    every human error row, by the scheme the analysis chooses (:func:`mtdiag.io.error_weights.weighed`): errors of
    weight 0 (source issues, no-errors) are then no spans, as in :mod:`mtdiag.io.annotations`."""
    rows, rated, position = [], [], {}
    for number, line in enumerate(split_lines(_text(source, display, limits)), 1):
        parts = line.split("\t")
        system = parts[0].strip()
        seg = position[system] = position.get(system, -1) + 1
        if seg >= n_segments:
            raise InputError(display, f"system {quote(system)} has more than {n_segments:,} ratings (one per "
                                      "segment)", number)
        if len(parts) == 2 and parts[1].strip() == NONE:
            continue
        if len(parts) not in (2, 3):
            raise InputError(display, f"expected SYSTEM<tab>RATING<tab>RATER or SYSTEM<tab>None, found "
                                      f"{len(parts)} fields", number)
        if system not in systems:
            continue
        rater = parts[2].strip() if len(parts) == 3 else ""
        rated.append((system, seg, rater))
        rows.append((seg, system, rater, "", -1, -1, "", "", True, display, number))  # rated, errors or not
        for error in _rating_errors(parts[1], display, number):
            side, start, end, severity, category = _span(error, display, number)
            rows.append((seg, system, rater, side, start, end, severity, category, True, display, number))
    short = {s: n + 1 for s, n in position.items() if n + 1 != n_segments and s in systems}
    if short:
        system, found = next(iter(short.items()))
        raise InputError(display, f"system {quote(system)} has {found:,} ratings; expected {n_segments:,} (one per "
                                  "segment)")
    return error_rows_frame(rows), rated_frame(rated)
