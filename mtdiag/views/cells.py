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
WIDE = re.compile("[\u1100-\u115f\u231a-\u231b\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff"
                  "\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f"
                  "\uff00-\uff60\uffe0-\uffe6\U0001f300-\U0001f64f\U0001f900-\U0001f9ff\U00020000-\U0003fffd]")
"""Characters drawn twice as wide as a Latin letter: the East Asian Wide and Fullwidth ranges of Unicode (UAX #11):
Hangul, CJK ideographs and punctuation, kana, full-width forms, most emoji."""


def _texts(values: pd.Series) -> pd.Series:
    return values.map(lambda v: v if isinstance(v, str) else "")


def wide_script(texts: pd.Series) -> np.ndarray:
    """Which texts are written mostly in wide characters (Chinese, Japanese, Korean), as a boolean array.

    Mostly: half or more of their characters other than spaces. A table that wraps text measures these apart from
    the others (see :mod:`mtdiag.ui.widgets`)."""
    text = _texts(texts)
    visible = text.str.len().to_numpy(dtype=float) - text.str.count(r"\s").to_numpy(dtype=float)
    wide = text.str.count(WIDE.pattern).to_numpy(dtype=float)
    return (wide > 0) & (2 * wide >= visible)


def _wrapped_end(text: str, line_em: float, lines: int) -> int:
    """How many characters of ``text`` ``lines`` lines of ``line_em`` ems show, wrapped as the grid wraps them
    (at the last space that fits on the line, else inside the word), with room for ``…`` on the last line."""
    em = np.cumsum([WIDE_EM if WIDE.match(ch) else NARROW_EM for ch in text])
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
    wide = text.str.count(WIDE.pattern).to_numpy(dtype=float)
    maybe = NARROW_EM * (chars - wide) + WIDE_EM * wide > (lines - 1) * line_em  # could need more than it has
    out = texts.copy()
    for i in np.flatnonzero(maybe):
        value = texts.iat[i][:int(lines * line_em / NARROW_EM) + 2]  # no more characters than could ever fit
        end = _wrapped_end(value, line_em, lines)
        if end < len(texts.iat[i]):
            out.iat[i] = value[:end].rstrip() + "…"
    return out
