"""The frames behind the dashboard's pages: one module per page (``docs/architecture.md``, "Views mirror pages").

| page (``pages/``) | view |
|---|---|
| Overview (``overview.py``) | :mod:`mtdiag.views.overview` |
| Segments (``segments.py``) | :mod:`mtdiag.views.segments` |
| Buckets (``buckets.py``) | :mod:`mtdiag.views.buckets` |
| Distributions (``distributions.py``) | :mod:`mtdiag.views.distributions` |
| Over/under-translation (``over_under.py``) | :mod:`mtdiag.views.over_under` |
| WAFT vs NEVA (``waft_neva.py``) | :mod:`mtdiag.views.waft_neva` |
| Terminology (``terminology.py``) | :mod:`mtdiag.views.terminology` |
| N-grams (``ngrams.py``) | :mod:`mtdiag.views.ngrams` |
| Human likeness & human scores (``likeness.py``) | :mod:`mtdiag.views.likeness` |
| Compare (``compare.py``) | :mod:`mtdiag.views.compare` |
| Slice finder (``slices.py``) | :mod:`mtdiag.views.slices` |

and :mod:`mtdiag.views.detail`, one (system, segment) with its evidence, which every page that opens a segment
shows. A page imports its own view (and the detail); a view may take what it shares with another view from it
and hands it on under its own name, so that a page's tables are all in its view.

Every function takes a :class:`~mtdiag.api.Report` — the whole test set's, or a slice's
(:func:`mtdiag.slices.slice_report`: a slice is a report of its own) — and returns pandas frames; nothing here
scores anything and nothing imports Streamlit. Inside a report a segment is its 0-based position ``seg``; people
see :attr:`mtdiag.evalset.EvalSet.seg_ids` (1-based, in a slice the segment's id in the whole set).

Two rules every view follows, kept here once:

- :func:`default_metric` — the metric a page shows first where it shows one: chrF when present, else BLEU, else the
  first offered;
- :func:`preview` / :func:`for_table` — a table cell shows at most :data:`TABLE_TEXT` characters of a text, cut
  with ``…``; the frames hold every text whole, and the downloads write them so.
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd

DEFAULT_METRICS = ("chrf", "bleu")
"""The metrics a page shows first, in order of preference: chrF (character n-gram F-score, robust on short and
morphologically rich segments, the WMT metrics task's long-standing baseline), then BLEU."""
TABLE_TEXT = 1000  # characters of a text shown in a table cell; the detail views and the downloads show it whole


def default_metric(metrics: Sequence[str], preferred: Sequence[str] = DEFAULT_METRICS) -> str | None:
    """The first of ``preferred`` among ``metrics`` (default: chrF, else BLEU), else the first of ``metrics``; None
    when there is none."""
    return next((m for m in preferred if m in metrics), metrics[0] if len(metrics) else None)


def preview(texts: pd.Series, width: int = TABLE_TEXT) -> pd.Series:
    """``texts`` with every text longer than ``width`` characters cut there and marked ``…`` (values that are no
    text, such as lists of segments, unchanged): a 10,000-word output must not make a table heavy."""
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
