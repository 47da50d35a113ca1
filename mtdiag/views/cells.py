"""What a table cell shows of a long text: a preview (:func:`preview`, :func:`for_table`), and the lines of a cell
whose row wraps its text (:func:`fit_lines`, :func:`wide_script`) — one rule for every view's tables."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

TABLE_TEXT = 1000  # characters of a text shown in a table cell; the detail views and the downloads show it whole



def preview(texts: pd.Series, width: int = TABLE_TEXT) -> pd.Series:
    """``texts`` with every text longer than ``width`` characters cut there and marked ``…``.

    Values that are no text, such as lists of segments, are unchanged. A 10,000-word output must not make a table
    heavy."""
    long = texts.map(lambda value: isinstance(value, str) and len(value) > width).to_numpy(dtype=bool)
    if not long.any():
        return texts
    return texts.where(~long, texts[long].str.slice(0, width) + "…")


def for_table(frame: pd.DataFrame, width: int = TABLE_TEXT) -> pd.DataFrame:
    """A copy of ``frame`` for a table cell: every text column through :func:`preview`."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column]):
            out[column] = preview(out[column], width)
    return out


CELL_FONT_PX = 14.0  # the data grid's text (0.875 rem)
CELL_PADDING_PX = 17.0  # a grid cell's padding, left and right together
NARROW_EM, WIDE_EM = 0.52, 1.0  # the width of a character, in ems: proportional Latin/Cyrillic/…, or wide (CJK)
LINE_MARGIN = 0.95  # of a line's width, what the estimate may fill (character widths vary around the average)
WIDE_RANGES = ((0x1100, 0x115F), (0x231A, 0x231B), (0x2E80, 0x303E), (0x3041, 0x33FF), (0x3400, 0x4DBF),
               (0x4E00, 0x9FFF), (0xA000, 0xA4CF), (0xA960, 0xA97F), (0xAC00, 0xD7A3), (0xF900, 0xFAFF),
               (0xFE10, 0xFE19), (0xFE30, 0xFE6F), (0xFF00, 0xFF60), (0xFFE0, 0xFFE6), (0x1F300, 0x1F64F),
               (0x1F900, 0x1F9FF), (0x20000, 0x3FFFD))
"""Characters drawn twice as wide as a Latin letter (first and last code point of each range): the East Asian Wide
and Fullwidth ranges of Unicode (UAX #11): Hangul, CJK ideographs and punctuation, kana, full-width forms, most
emoji."""
WIDE = re.compile("[" + "".join(f"{chr(first)}-{chr(last)}" for first, last in WIDE_RANGES) + "]")
"""One character of :data:`WIDE_RANGES`."""
_WIDE_BOUNDS = np.array([b for first, last in WIDE_RANGES for b in (first, last + 1)], dtype=np.uint32)


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _is_wide(code_points: np.ndarray) -> np.ndarray:
    """Per code point: it lies in :data:`WIDE_RANGES` (inside a range: an odd number of range bounds at or below)."""
    return np.searchsorted(_WIDE_BOUNDS, code_points, side="right") % 2 == 1


def _wide_counts(texts: pd.Series) -> np.ndarray:
    """How many characters of :data:`WIDE_RANGES` each text has (one pass over all of them)."""
    values = texts.tolist()
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    wide = _is_wide(_code_points("".join(values)))
    return np.bincount(np.repeat(np.arange(len(values)), lengths)[wide], minlength=len(values)).astype(float)


def _texts(values: pd.Series) -> pd.Series:
    return values.map(lambda v: v if isinstance(v, str) else "")


def wide_script(texts: pd.Series) -> np.ndarray:
    """Which texts are written mostly in wide characters (Chinese, Japanese, Korean), as a boolean array.

    Mostly: half or more of their characters other than spaces. A table that wraps text measures these apart from
    the others (see :mod:`mtdiag.ui.widgets`)."""
    text = _texts(texts)
    visible = text.str.len().to_numpy(dtype=float) - text.str.count(r"\s").to_numpy(dtype=float)
    wide = _wide_counts(text)
    return (wide > 0) & (2 * wide >= visible)


def _wrapped_end(text: str, em: np.ndarray, line_em: float, lines: int) -> int:
    """How many characters of ``text`` ``lines`` lines of ``line_em`` ems show, wrapped as the grid wraps them
    (at the last space that fits on the line, else inside the word), with room for ``…`` on the last line. ``em``:
    the width of the text up to and with each character, in ems."""
    start = 0
    for line in range(lines):
        room = line_em - (WIDE_EM if line == lines - 1 else 0.0)  # the last line keeps room for "…"
        before = em[start - 1] if start else 0.0
        end = int(np.searchsorted(em, before + room, side="right"))
        if end >= len(text):
            return len(text)
        if line == lines - 1:
            return end
        space = text.rfind(" ", start, end + 1)
        start = space + 1 if space > start else max(end, start + 1)
        while start < len(text) and text[start] == " ":
            start += 1
    return start


def fit_lines(texts: pd.Series, width_px: float, lines: int) -> pd.Series:
    """``texts`` cut, with ``…``, to what ``lines`` wrapped lines of a table cell ``width_px`` wide show.

    So a row shows its text whole or says it goes on, never a line cut in half by the row's border. Widths are
    estimated per character (:data:`NARROW_EM`, :data:`WIDE_EM`) and lines broken as the grid breaks them; values
    that are no text are unchanged. The full text stays in the frame behind the table."""
    line_em = (width_px - CELL_PADDING_PX) / CELL_FONT_PX * LINE_MARGIN
    text = _texts(texts)
    chars = text.str.len().to_numpy(dtype=float)
    wide = _wide_counts(text)
    maybe = NARROW_EM * (chars - wide) + WIDE_EM * wide > (lines - 1) * line_em  # could need more than it has
    out = texts.tolist()  # cut in a list, one Series made at the end: a cell set in a Series costs 50 µs
    rows = np.flatnonzero(maybe).tolist()
    values = [out[i][:int(lines * line_em / NARROW_EM) + 2] for i in rows]  # no more than could ever fit
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    ends = np.cumsum(lengths)
    widths = np.where(_is_wide(_code_points("".join(values))), WIDE_EM, NARROW_EM)  # every text measured at once
    for i, value, first, last in zip(rows, values, (ends - lengths).tolist(), ends.tolist()):
        end = _wrapped_end(value, np.cumsum(widths[first:last]), line_em, lines)
        if end < len(out[i]):
            out[i] = value[:end].rstrip() + "…"
    return pd.Series(out, index=texts.index, name=texts.name, dtype=texts.dtype)
