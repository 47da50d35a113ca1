"""The frames behind the dashboard's pages: one module per page (``docs/architecture.md``, "Views mirror pages").

Every function takes a :class:`~mtdiag.api.Report` — the whole test set's, or a slice's
(:func:`mtdiag.slices.slice_report`: a slice is a report of its own) — and returns pandas frames; nothing here
scores anything and nothing imports Streamlit. A page draws what its view returns.
"""

from __future__ import annotations

import pandas as pd


TEXT_PREVIEW = 120  # characters of a text shown in a table cell (12,000-row tables stay light)


def preview(texts: pd.Series, width: int = TEXT_PREVIEW) -> pd.Series:
    texts = texts.astype(str)
    long = texts.str.len() > width
    return texts.where(~long, texts.str.slice(0, width) + "…")


def preview_one(text: str, width: int = TEXT_PREVIEW) -> str:
    text = str(text)
    return text if len(text) <= width else text[:width] + "…"
