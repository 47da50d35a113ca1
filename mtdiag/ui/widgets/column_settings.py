"""How a column is shown: metric labels, formats and help, segment numbers, the grid's column settings.

Segment numbers: the core counts segments from 0 (``seg``); people see the segment's id in the whole set
(:attr:`mtdiag.core.evalset.EvalSet.seg_ids`: the line of the files, the ``seg_id`` of terms and human-score TSVs — in a
slice the original segment's, not its place in the slice). A view's tables already name segments so
(:func:`mtdiag.views.with_set_ids`); :func:`segment_number` converts one position for a caption.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from mtdiag import views
from mtdiag.report import export
from mtdiag.core import highlight
from mtdiag.ui import state
from mtdiag.views import MetricInfo, metric_info

PROBLEM_WIDTH = 100  # pixels: the problem score's bar and number


def _segment_ids() -> np.ndarray | None:
    """The ids people see of this run's segments (:attr:`mtdiag.core.evalset.EvalSet.seg_ids`), None before a report."""
    report = state.current_report()
    return None if report is None else report.evalset.seg_ids


def _shown_ids(positions, ids: np.ndarray | None) -> np.ndarray:
    """0-based ``positions`` as the ids people see: ``ids[positions]``, or ``positions + 1`` without ids (or for a
    position outside them: a table of another set)."""
    positions = np.asarray(positions, dtype=np.int64)
    if ids is None or not len(positions) or positions.max() >= len(ids) or positions.min() < 0:
        return positions + 1
    return ids[positions]


def segment_number(seg: int) -> int:
    """The id people see for this run's 0-based segment ``seg`` (module doc)."""
    return int(_shown_ids([int(seg)], _segment_ids())[0])


def _info(metric: str) -> MetricInfo:
    """A metric's metadata, an imported metric's through this session's report (never the process's: one session's
    imported metrics are not another's)."""
    return metric_info(metric, state.current_report())


def is_metric(column: str) -> bool:
    """Whether ``column`` names a metric: registered, or imported by this session's data."""
    return views.is_metric(column, state.current_report())


def metric_label(metric: str, arrow: bool = True) -> str:
    """``BLEU ↑`` / ``OTEM ↓`` (the arrow says which direction is better; :attr:`MetricInfo.arrow_label`)."""
    if not is_metric(metric):
        return metric
    info = _info(metric)
    return info.arrow_label if arrow else info.label


def metric_help(metric: str) -> str:
    """A metric column's help (Markdown, escaped: an imported metric's description names it and its file)."""
    info = _info(metric)
    return highlight.escape_markdown(f"{info.description} ({info.scale_text}, {info.direction}; {info.paper})")


def metric_value(metric: str, value) -> str:
    """A score as people read it: the metric's places (:meth:`mtdiag.metrics.MetricInfo.format`)."""
    return _info(metric).format(value)


def number_format(metric: str) -> str:
    """The ``%.Nf`` format of ``metric``'s scores, N its decimal places."""
    return f"%.{_info(metric).places}f"


TEXT_CHAR_PX = 8  # a character of the grid's 14 px font, generously (capitals and wide letters included)
CELL_HORIZONTAL_PX = 16  # a cell's left and right padding (the grid's 8 px each)
TAGS_PX = (75, 240)  # the tags column's width: at least Streamlit's "small", at most what leaves room for the text


def tags_width(labels: pd.Series) -> int:
    """The pixel width of a ``tags`` column: its longest word on one line (within :data:`TAGS_PX`).

    So a tag wraps between its words, never inside one. Without a width the grid gave the column the width of its
    header, and in a table whose rows wrap (the Segments queue) "check later" wrapped letter by letter;
    as wide as a whole label the column pushed the outputs' text off a 1,600-pixel screen."""
    words = labels.astype(str).str.split(r"[\s,]+", regex=True).explode() if len(labels) else pd.Series([], dtype=str)
    longest = int(words.str.len().max()) if len(words.dropna()) else 0
    return int(min(max(longest * TEXT_CHAR_PX + CELL_HORIZONTAL_PX, TAGS_PX[0]), TAGS_PX[1]))


def column_config(frame: pd.DataFrame, wrap: bool = False) -> dict:
    """Column settings for a frame holding metric columns, flag columns and texts.

    ``wrap``: the table's rows wrap their text (then the ``tags`` column gets the width of its longest word,
    :func:`tags_width`)."""
    config: dict = {}
    for column in frame.columns:
        if is_metric(column):
            config[column] = st.column_config.NumberColumn(metric_label(column), help=metric_help(column),
                                                           format=number_format(column))
        elif views.is_flag(column):
            config[column] = st.column_config.CheckboxColumn(views.flag_label(column), help=views.flag_help(column))
        elif column == "neva_minus_waft":
            config[column] = st.column_config.NumberColumn("NEVA − WAFT", format="%.4f",
                                                           help="positive: NEVA > WAFT (shared n-grams, not the references' order; see the WAFT vs NEVA page)")
        elif column == "problem":
            config[column] = st.column_config.ProgressColumn("problem", min_value=0.0, max_value=1.0, format="%.3f",
                                                             width=PROBLEM_WIDTH, help=views.PROBLEM_TEXT)
        elif column == "human":
            config[column] = st.column_config.NumberColumn("human", format=f"%.{views.SCORE_PLACES}f",
                                                           help="the human score (as loaded; a mean where several "
                                                                "ratings meet)")
        elif column == "flags" and pd.api.types.is_string_dtype(frame[column]):
            config[column] = st.column_config.TextColumn("flags", help="the checks that fired on this output")
        elif pd.api.types.is_float_dtype(frame[column]):  # one format per column, the command line's
            config[column] = st.column_config.NumberColumn(str(column), format=f"%.{export.PLACES}f")
        elif column == "tags":
            config[column] = st.column_config.TextColumn("tags", width=tags_width(frame[column]) if wrap else None,
                                                         help="your tags of this output or its segment")
        elif "seg_id" in frame.columns and column in ("src", "hyp"):
            config[column] = st.column_config.TextColumn(column, width="large")
    return config
