"""Tables (Streamlit's grid): column settings, heights, wrapped text, pages, row selection and tags, downloads."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Sequence

import pandas as pd
import streamlit as st

from mtdiag import views
from mtdiag.report import export
from mtdiag.ui import state, tagging
from mtdiag.ui.widgets.column_settings import _info, column_config, metric_help, metric_label

if TYPE_CHECKING:
    from pandas.io.formats.style import Styler

ROW_PX = 35  # Streamlit's default row and header height (2.1875rem)
WRAP_PX = 64  # Streamlit's grid wraps the text of rows taller than this (4rem)
LINE_PX = 18  # one wrapped line of the grid's text
CELL_VERTICAL_PX = 6  # a cell's top and bottom padding, with room to spare
NAMED_WIDTHS = {"small": 75, "medium": 200, "large": 400}  # st.column_config's named column widths, in pixels
WIDE_FONT = "font-weight: 400"  # the grid's own weight, under a font name of its own (see wrapped)
BORDER_PX = 1


def downloads(frame: pd.DataFrame, name: str, key: str, excel: bool = False, json: bool = False) -> None:
    """Download buttons for a table: CSV (always), Excel (``excel=True``) and JSON records (``json=True``).

    Files are built on click."""
    slug = re.sub(r"[^\w.-]+", "_", name).strip("_") or "table"
    row = st.container(horizontal=True, gap="small")
    row.download_button("CSV", data=lambda: export.to_csv(frame), file_name=f"{slug}.csv", mime="text/csv",
                        key=f"dl_csv_{key}", on_click="ignore", icon=":material/download:",
                        help=f"Download this table ({len(frame):,} rows) as CSV")
    if excel:
        row.download_button(
            "Excel", data=lambda: export.to_excel(frame), file_name=f"{slug}.xlsx", key=f"dl_xlsx_{key}",
            mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", on_click="ignore",
            icon=":material/download:", help=f"Download this table ({len(frame):,} rows) as an Excel workbook")
    if json:
        row.download_button("JSON", data=lambda: export.to_json(frame), file_name=f"{slug}.json",
                            mime="application/json", key=f"dl_json_{key}", on_click="ignore",
                            icon=":material/download:", help=f"Download this table ({len(frame):,} rows) as JSON records")


def fitted_height(rows: int, max_height: int, row_height: int | None = None) -> int:
    """The pixel height of a table that shows its ``rows`` rows under its header, at most ``max_height``.

    An empty table shows one empty row; rows are ``row_height`` pixels (Streamlit's 35 by default); past
    ``max_height`` the table scrolls. Streamlit's own geometry (its ``DataFrame`` element: rows × row height + header +
    two borders); a fixed height would pad a one-row result with blank rows."""
    return min(max_height, max(rows, 1) * (row_height or ROW_PX) + ROW_PX + 2 * BORDER_PX)


def wrapped(frame: pd.DataFrame, config: dict, row_height: int) -> tuple[pd.DataFrame, pd.DataFrame | Styler]:
    """A frame whose rows wrap their text (rows taller than :data:`WRAP_PX`), ready for the grid.

    Returns (the frame with each text of a column of known width cut to the lines a row shows,
    :func:`mtdiag.views.fit_lines`; what to draw). The grid (glide-data-grid) decides where to wrap a text by measuring
    a prefix as long as an *average* character width allows, averaged over every text drawn in its font: beside Chinese
    sources that average is twice a Latin letter's, and English outputs were never wrapped. Cells of wide-script text
    (:func:`mtdiag.views.wide_script`) are therefore drawn through a Styler in a font that reads the same but has a name
    of its own (``font-weight: 400``), which keeps their widths apart from the others'."""
    lines = max(1, (row_height - 2 * CELL_VERTICAL_PX) // LINE_PX)
    texts = [c for c in frame.columns if isinstance(config.get(c), dict) and config[c].get("type_config", {}).get(
        "type") == "text" and _width_px(config[c].get("width"))
             and (pd.api.types.is_object_dtype(frame[c]) or pd.api.types.is_string_dtype(frame[c]))]
    if not texts:
        return frame, frame
    fitted = frame.assign(**{c: _fitted(frame[c], _width_px(config[c]["width"]), lines) for c in texts})
    wide = {c: views.wide_script(fitted[c]) for c in texts}
    if not any(w.any() for w in wide.values()) or all(w.all() for w in wide.values()):
        return fitted, fitted  # one script: one average serves every cell
    styles = pd.DataFrame("", index=fitted.index, columns=texts)
    for column, mask in wide.items():
        styles.loc[mask, column] = WIDE_FONT
    return fitted, fitted.style.apply(lambda _: styles, axis=None, subset=texts)


@st.cache_data(show_spinner=False, max_entries=64, ttl=state.REPORT_TTL_S)
def _fitted(texts: pd.Series, width_px: int, lines: int) -> pd.Series:
    """:func:`mtdiag.views.fit_lines`, cached by the texts themselves (a page of at most a table's page size): every
    rerun of a page — any click on it — fitted the same thousand texts again, 0.1 s a column."""
    return views.fit_lines(texts, width_px, lines)


def _width_px(width) -> int | None:
    """A column's width in pixels (Streamlit's named widths too), None when it has none."""
    return NAMED_WIDTHS.get(width, width if isinstance(width, int) else None)


def table(frame: pd.DataFrame, key: str, *, name: str | None = None, select: bool = False, excel: bool = False,
          max_height: int | None = None, hide_index: bool = True, config: dict | None = None,
          column_order: Sequence[str] | None = None, page_size: int | None = None, row_height: int | None = None,
          download: pd.DataFrame | None = None) -> int | None:
    """A table (``st.dataframe``) with its download buttons; with ``select=True``, the selected row's position.

    With ``select=True`` one row can be selected and its position in ``frame`` is returned (None when nothing is
    selected). A table whose rows name segments (``seg``/``seg_id``) of the loaded run lets several rows be selected and
    tagged (:mod:`mtdiag.ui.tagging`: then ``select`` returns the first selected row) and shows their tags in a ``tags``
    column. ``page_size``: a longer frame is shown a page at a time, with a page number input (the browser gets one
    page, not 23,000 rows of text; the downloads hold every row; a selection is returned as its position in the whole
    ``frame``). ``max_height`` (pixels): the table is as tall as its rows up to there (:func:`fitted_height`); None:
    Streamlit's (at most ten rows). ``row_height`` (pixels): Streamlit wraps the text of cells in rows taller than 64 px
    (4rem) onto several lines. ``download``: what the buttons write instead of the table (e.g.
    :func:`mtdiag.views.segments.segment_export`: then CSV, Excel and JSON)."""
    frame = tagging.with_tags_column(frame)
    if column_order is not None:
        column_order = list(column_order)
        if "tags" in frame.columns and "tags" not in column_order:
            column_order.insert(column_order.index("seg_id") + 1 if "seg_id" in column_order else 0, "tags")
    if download is not None:
        download = tagging.with_tags_column(download)
    taggable = tagging.taggable(frame)
    full = frame
    area = st.container()  # the table; a page number, when there are pages, goes under it
    frame, offset, table_key = _page(frame, key, page_size)
    frame = views.for_table(frame)  # a cell shows the first TABLE_TEXT characters; the downloads hold every text
    frame = frame.assign(**{c: frame[c].str.replace(",", ", ") for c in ("flags", "critical")  # wrap at the names
                            if c in frame.columns and pd.api.types.is_string_dtype(frame[c])})
    cfg = column_config(frame, wrap=row_height is not None and row_height > WRAP_PX)
    cfg.update(config or {})
    shown = frame
    if row_height is not None and row_height > WRAP_PX:
        frame, shown = wrapped(frame, cfg, row_height)
    height = "auto" if max_height is None else fitted_height(len(frame), max_height, row_height)
    kwargs = dict(hide_index=hide_index, column_config=cfg, height=height, key=table_key, column_order=column_order,
                  row_height=row_height)
    if select or taggable:
        event = area.dataframe(shown, on_select="rerun", selection_mode="multi-row" if taggable else "single-row",
                               **kwargs)
        rows = [int(r) for r in (event.selection.rows if event is not None else []) if 0 <= int(r) < len(frame)]
    else:
        area.dataframe(shown, **kwargs)
        rows = []
    if taggable and rows:
        tagging.tag_rows(frame.iloc[sorted(rows)], key=table_key)
    if download is None:
        downloads(full, name or key, key, excel=excel)
    else:
        downloads(download, name or key, key, excel=True, json=True)
    if select and rows:
        return offset + rows[0]
    return None


def _page(frame: pd.DataFrame, key: str, page_size: int | None) -> tuple[pd.DataFrame, int, str]:
    """The page of ``frame`` the user chose with a page number input (drawn here when ``frame`` is longer than
    ``page_size``): ``(its rows, the position of its first row in frame, the table's key on that page)``."""
    if page_size is None or len(frame) <= page_size:
        return frame, 0, key
    pages = -(-len(frame) // page_size)
    page_key = f"{key}_page"
    if st.session_state.get(page_key, 1) > pages:  # the rows were filtered down since
        st.session_state[page_key] = pages
    left, right = st.columns([1, 6], vertical_alignment="center")
    page = int(left.number_input(f"Page (of {pages:,})", min_value=1, max_value=pages, value=1, step=1,
                                 key=page_key, width=160))
    offset = (page - 1) * page_size
    right.caption(f"Rows {offset + 1:,}–{min(offset + page_size, len(frame)):,} of {len(frame):,}; the downloads "
                  "have them all.")
    table_key = key if page == 1 else f"{key}_page{page}"  # a selection belongs to its page
    return frame.iloc[offset:offset + page_size], offset, table_key


# --------------------------------------------------------------------------------------------- overview


BEST_STYLE = "background-color: rgba(37, 99, 235, 0.22); font-weight: 700;"


def overview_styler(corpus: pd.DataFrame, best: dict, marks: dict):
    """The corpus table (index system) as a pandas Styler: scores with their significance mark, the best shaded.

    ``marks``: per metric and system ``▲``/``▼``/``=``; ``best``: per metric its best systems, shaded. (Sorting in the
    grid still uses the numbers.)"""
    places = {metric: _info(metric).places for metric in corpus.columns}
    styler = corpus.style.format({metric: f"{{:.{p}f}}" for metric, p in places.items()}, na_rep="–")
    for metric in corpus.columns:  # one format per mark and metric, not per cell: a release has ~80 metrics
        by_mark: dict[str, list] = {}
        for system, mark in marks.get(metric, {}).items():
            if mark and system in corpus.index:
                by_mark.setdefault(mark, []).append(system)
        for mark, systems in by_mark.items():
            styler = styler.format(f"{{:.{places[metric]}f}} {mark}", na_rep="–",
                                   subset=pd.IndexSlice[systems, [metric]])
    return styler.apply(lambda col: [BEST_STYLE if s in best.get(col.name, ()) else "" for s in col.index], axis=0)



def overview_config(corpus: pd.DataFrame) -> dict:
    """Column settings of the corpus table: ``system``, then each metric with its label and help."""
    config = {"system": st.column_config.TextColumn("system")}
    for metric in corpus.columns:
        config[metric] = st.column_config.Column(metric_label(metric), help=metric_help(metric))
    return config


def corpus_table(current: state.Current, frame: pd.DataFrame, *, key: str, params: Sequence) -> None:
    """Draw the Overview's corpus scores, styled (:func:`overview_styler`, built once per ``params``).

    ``frame``: its view's ``corpus`` table (``system`` and a column per metric, what is best and what is significant
    in its ``attrs``)."""
    corpus = frame.set_index("system")
    st.dataframe(state.memo("overview_styler", current.key, tuple(params),
                            lambda: overview_styler(corpus, frame.attrs["best"], frame.attrs["marks"])),
                 column_config=overview_config(corpus), key=key)
