"""Warnings for empty and very long segments and table cells (the data is kept as it is), measured by Arrow."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mtdiag.io.text.decoding import Lines, as_lines, blank_mask
from mtdiag.io.text.limits import Limits
from mtdiag.io.text.wording import SHOWN_NAMES, lines_phrase, quote, quote_names

def segment_warnings(name: str, values: list[str], line_numbers: list[int] | None, limits: Limits,
                      column: str | None = None) -> list[str]:
    """Warnings for empty and very long segments (the data is kept as it is)."""
    where = f"{name}: column {quote(column)}:" if column is not None else f"{name}:"
    array = as_lines(values)
    lines = np.arange(1, len(array) + 1) if line_numbers is None else np.asarray(line_numbers, dtype=np.int64)
    return _warnings_of(where, lines[blank_mask(array)].tolist(), lines[_long_mask(array, limits)].tolist(),
                        "value" if column is not None else "line", limits)


def column_warnings(name: str, columns: Sequence[str], cells: Sequence[str], line_numbers: Sequence[int],
                    limits: Limits) -> list[str]:
    """:func:`segment_warnings` of every column of a table at once.

    ``cells`` holds the rows one after the other (``len(columns)`` cells each, the row of line ``line_numbers[i]``),
    measured by Arrow in one pass — no work per column but for the columns that have something to say (a one-row table
    of 1,000 columns took 1–2.5 ms per column). Up to :data:`SHOWN_NAMES` columns get their own lines; more columns with
    empty or long values get one line per kind, naming the first ten."""
    width = len(columns)
    if not width or not len(cells):
        return []
    array = as_lines(cells)
    empty, long = blank_mask(array).reshape(-1, width), _long_mask(array, limits).reshape(-1, width)
    lines = np.asarray(line_numbers, dtype=np.int64)
    flagged = np.flatnonzero(empty.any(axis=0) | long.any(axis=0))
    if len(flagged) <= SHOWN_NAMES:
        return [warning for i in flagged for warning in _warnings_of(
            f"{name}: column {quote(columns[i])}:", lines[empty[:, i]].tolist(), lines[long[:, i]].tolist(), "value",
            limits)]
    found = []
    for mask, what in ((empty, "empty values, kept as empty segments"),
                       (long, f"segments over {limits.long_segment_words:,} words or "
                              f"{limits.long_segment_chars:,} characters, kept whole")):
        having = np.flatnonzero(mask.any(axis=0))
        if len(having):
            names = quote_names([quote(columns[i]) for i in having[:SHOWN_NAMES]], len(having))
            found.append(f"{name}: {len(having):,} columns have {what} ({names}; {int(mask.sum()):,} cells)")
    return found


def _warnings_of(where: str, empty: list[int], long: list[int], noun: str, limits: Limits) -> list[str]:
    """The lines of :func:`segment_warnings` for one column (or file): its empty and its long segments' lines."""
    found = []
    if empty:
        ending = "" if len(empty) == 1 else "s"
        kept = "an empty segment" if len(empty) == 1 else "empty segments"
        found.append(f"{where} {len(empty)} empty {noun}{ending} ({lines_phrase(empty)}) kept as {kept}")
    if long:
        ending = "" if len(long) == 1 else "s"
        found.append(
            f"{where} {len(long)} segment{ending} over {limits.long_segment_words:,} words or "
            f"{limits.long_segment_chars:,} characters ({lines_phrase(long)}) kept whole; "
            "the dashboard shortens long segments on display"
        )
    return found


def _long_mask(array: Lines, limits: Limits) -> np.ndarray:
    """Which values have over ``long_segment_chars`` characters or over ``long_segment_words`` words (Python's
    ``str.split()``); lengths come from Arrow, and only a value longer than the word limit (in characters) can
    hold more words than it, so only those few are split."""
    lengths = pc.utf8_length(pa.array(array)).to_numpy(zero_copy_only=False)
    mask = lengths > limits.long_segment_chars
    for i in np.flatnonzero(~mask & (lengths > limits.long_segment_words)):
        mask[i] = len(array[i].split()) > limits.long_segment_words
    return mask
