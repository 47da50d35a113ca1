"""Shared widgets: tables with downloads and row selection, HTML blocks, the segment detail, pickers.

HTML shown here is built only by :mod:`mtdiag.core.highlight` (which escapes every piece of text) and rendered with
``st.html`` (no JavaScript runs). Every user-derived string (system, reference and file names, terms, n-grams,
input messages) that reaches Markdown — ``st.markdown``/``st.caption``/banners/widget labels and help — goes through
:func:`mtdiag.core.highlight.escape_markdown`. Select-box and multiselect *options* are shown as plain text by Streamlit
and need nothing; the options of radio buttons and segmented controls are Markdown, and :func:`radio` and
:func:`segmented` escape them (:func:`as_text`): pages draw those controls through them.

Segment numbers: the core counts segments from 0 (``seg``); people see the segment's id in the whole set
(:attr:`mtdiag.core.evalset.EvalSet.seg_ids`: the line of the files, the ``seg_id`` of terms and human-score TSVs — in a
slice the original segment's, not its place in the slice). A view's tables already name segments so
(:func:`mtdiag.views.with_set_ids`); :func:`segment_number` converts one position for a caption.

A widget's ``format_func`` stays in the session's widget state for the life of the session (Streamlit keeps it
with the widget): pages pass a dict's ``__getitem__`` or a function of this module, never a lambda defined in the
page — its globals are the page's, with the report, which a closed session would then keep alive.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np
import pandas as pd
import streamlit as st

from mtdiag.report import export
from mtdiag.core import highlight
from mtdiag import views
from mtdiag.pipeline.inputs import NO_REFERENCE
from mtdiag.ui import state, tagging
from mtdiag.views import MetricInfo, SegmentDetail, flag_columns, metric_info

if TYPE_CHECKING:
    from pandas.io.formats.style import Styler

PROBLEM_WIDTH = 100  # pixels: the problem score's bar and number
ROW_PX = 35  # Streamlit's default row and header height (2.1875rem)
WRAP_PX = 64  # Streamlit's grid wraps the text of rows taller than this (4rem)
LINE_PX = 18  # one wrapped line of the grid's text
CELL_VERTICAL_PX = 6  # a cell's top and bottom padding, with room to spare
NAMED_WIDTHS = {"small": 75, "medium": 200, "large": 400}  # st.column_config's named column widths, in pixels
WIDE_FONT = "font-weight: 400"  # the grid's own weight, under a font name of its own (see wrapped)
BORDER_PX = 1


# --------------------------------------------------------------------------------------------- labels


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
    return f"%.{_info(metric).places}f"


TEXT_CHAR_PX = 8  # a character of the grid's 14 px font, generously (capitals and wide letters included)
CELL_HORIZONTAL_PX = 16  # a cell's left and right padding (the grid's 8 px each)
TAGS_PX = (75, 240)  # the tags column's width: at least Streamlit's "small", at most what leaves room for the text


def tags_width(labels: pd.Series) -> int:
    """The pixel width of a ``tags`` column: its longest word on one line (within :data:`TAGS_PX`), so that a
    tag wraps between its words, never inside one. Without a width the grid gave the column the width of its
    header, and in a table whose rows wrap (the Segments queue) "check later" wrapped letter by letter (issue 37);
    as wide as a whole label the column pushed the outputs' text off a 1,600-pixel screen."""
    words = labels.astype(str).str.split(r"[\s,]+", regex=True).explode() if len(labels) else pd.Series([], dtype=str)
    longest = int(words.str.len().max()) if len(words.dropna()) else 0
    return int(min(max(longest * TEXT_CHAR_PX + CELL_HORIZONTAL_PX, TAGS_PX[0]), TAGS_PX[1]))


def column_config(frame: pd.DataFrame, wrap: bool = False) -> dict:
    """Column settings for a frame holding metric columns, flag columns and texts; ``wrap``: the table's rows wrap
    their text (then the ``tags`` column gets the width of its longest word, :func:`tags_width`)."""
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
        elif pd.api.types.is_float_dtype(frame[column]):  # one format per column (issue 37), the command line's
            config[column] = st.column_config.NumberColumn(str(column), format=f"%.{export.PLACES}f")
        elif column == "tags":
            config[column] = st.column_config.TextColumn("tags", width=tags_width(frame[column]) if wrap else None,
                                                         help="your tags of this output or its segment")
        elif "seg_id" in frame.columns and column in ("src", "hyp"):
            config[column] = st.column_config.TextColumn(column, width="large")
    return config


# --------------------------------------------------------------------------------------------- html


PAGE_STYLE = "<style>[data-testid='stMainBlockContainer']{padding-top:3rem;}</style>"
"""The page starts 3 rem from the top instead of Streamlit's 6: the Segments page's first ten rows fit a 1,000-pixel
window."""


def style() -> None:
    """The highlight CSS and the page's own (once per page run)."""
    st.html(highlight.STYLE + PAGE_STYLE)


def html(body: str) -> None:
    """Render HTML built by :mod:`mtdiag.core.highlight` (escaped there)."""
    st.html(body)


def explain(text: str) -> None:
    st.info(text, icon=":material/info:")


def panel(label: str, *, key: str, where=st):
    """An optional panel: an expander that tracks whether it is open (``on_change="rerun"``). Its ``.open`` is True
    only while the user has it open, so a page draws (and computes) the panel's content only then — a closed
    expander's content was built, sent and laid out by the browser on every run (the Overview's signatures cost the
    browser 0.7 s of syntax highlighting, unseen). Opening or closing it reruns the page."""
    return where.expander(label, key=key, on_change="rerun")


def reference_needed(current: state.Current) -> bool:
    """True (and one sentence on the page saying why and what to upload) when the data has no reference: the
    caller stops or offers what works without one."""
    if current.evalset.has_references:
        return False
    explain(NO_REFERENCE[0].upper() + NO_REFERENCE[1:] + ".")
    return True


# --------------------------------------------------------------------------------------------- charts


def chart(current: state.Current, kind: str, params: Sequence, build: Callable, *, key: str, where=st) -> None:
    """A plotly chart built once per (kind, data, options, params) — see :func:`mtdiag.ui.state.memo`."""
    where.plotly_chart(state.memo(kind, current.key, tuple(params), build), key=key)


# --------------------------------------------------------------------------------------------- tables


def downloads(frame: pd.DataFrame, name: str, key: str, excel: bool = False, json: bool = False) -> None:
    """Download buttons for a table: CSV (always), Excel (``excel=True``) and JSON records (``json=True``). Files
    are built on click."""
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
    """The pixel height of a table that shows its ``rows`` rows (an empty table shows one empty row) of
    ``row_height`` pixels (Streamlit's 35 by default) under its header, at most ``max_height`` (then it scrolls).
    Streamlit's own geometry (its ``DataFrame`` element: rows × row height + header + two borders); a fixed height
    would pad a one-row result with blank rows."""
    return min(max_height, max(rows, 1) * (row_height or ROW_PX) + ROW_PX + 2 * BORDER_PX)


def wrapped(frame: pd.DataFrame, config: dict, row_height: int) -> tuple[pd.DataFrame, pd.DataFrame | Styler]:
    """A frame whose rows wrap their text (rows taller than :data:`WRAP_PX`), ready for the grid: (the frame with
    each text of a column of known width cut to the lines a row shows, :func:`mtdiag.views.fit_lines`; what to
    draw). The grid (glide-data-grid) decides where to wrap a text by measuring a prefix as long as an *average*
    character width allows, averaged over every text drawn in its font: beside Chinese sources that average is
    twice a Latin letter's, and English outputs were never wrapped. Cells of wide-script text
    (:func:`mtdiag.views.wide_script`) are therefore drawn through a Styler in a font that reads the same but has a
    name of its own (``font-weight: 400``), which keeps their widths apart from the others'."""
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
    rerun of a page — any click on it — fitted the same thousand texts again, 0.1 s a column (issue 37)."""
    return views.fit_lines(texts, width_px, lines)


def _width_px(width) -> int | None:
    """A column's width in pixels (Streamlit's named widths too), None when it has none."""
    return NAMED_WIDTHS.get(width, width if isinstance(width, int) else None)


def table(frame: pd.DataFrame, key: str, *, name: str | None = None, select: bool = False, excel: bool = False,
          max_height: int | None = None, hide_index: bool = True, config: dict | None = None,
          column_order: Sequence[str] | None = None, page_size: int | None = None, row_height: int | None = None,
          download: pd.DataFrame | None = None) -> int | None:
    """A table (``st.dataframe``) with its download buttons; with ``select=True`` one row can be selected and
    its position in ``frame`` is returned (None when nothing is selected). A table whose rows name segments
    (``seg``/``seg_id``) of the loaded run lets several rows be selected and tagged (:mod:`mtdiag.ui.tagging`:
    then ``select`` returns the first selected row) and shows their tags in a ``tags`` column. ``page_size``: a longer frame is shown a
    page at a time, with a page number input (the browser gets one page, not 23,000 rows of text; the downloads
    hold every row; a selection is returned as its position in the whole ``frame``). ``max_height`` (pixels): the
    table is as tall as its rows up to there (:func:`fitted_height`); None: Streamlit's (at most ten rows).
    ``row_height`` (pixels): Streamlit wraps the text of cells in rows taller than 64 px (4rem) onto several lines.
    ``download``: what the buttons write instead of the table (e.g. :func:`mtdiag.views.segments.segment_export`: then
    CSV, Excel and JSON)."""
    frame = tagging.with_tags_column(frame)
    if column_order is not None:
        column_order = list(column_order)
        if "tags" in frame.columns and "tags" not in column_order:
            column_order.insert(column_order.index("seg_id") + 1 if "seg_id" in column_order else 0, "tags")
    if download is not None:
        download = tagging.with_tags_column(download)
    taggable = tagging.taggable(frame)
    full, offset, table_key = frame, 0, key
    area = st.container()  # the table; a page number, when there are pages, goes under it
    if page_size is not None and len(frame) > page_size:
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
        frame = frame.iloc[offset:offset + page_size]
        table_key = key if page == 1 else f"{key}_page{page}"  # a selection belongs to its page
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


# --------------------------------------------------------------------------------------------- choices

FOLLOWED = "_mtdiag_followed"  # session key: {control key: the data key its value was chosen on}
_UNSET = object()


def follow(key: str, options: Sequence, default) -> None:
    """Make the choice control ``key`` (drawn right after, without a default of its own) hold a value among
    ``options``: the user's choice while it is among them and the data is the data it was made on, else
    ``default`` (a list for a multiselect: the choices still among ``options`` are kept, ``default`` when none is).

    The value is *assigned* in ``st.session_state`` — Streamlit then sends it to the browser with the
    widget. Deleting the key, or leaving a value that is no longer an option, is not enough: a keyed widget keeps
    its identity when its options change, so the browser went on showing the old set's choice (a Baseline of a
    sample system after an upload) while the script used another. :func:`select`, :func:`multiselect`,
    :func:`segmented` and :func:`radio` call this; pages draw every choice through them."""
    data = state.current().data.data_key
    followed = st.session_state.setdefault(FOLLOWED, {})
    value = st.session_state.get(key, _UNSET)
    if value is _UNSET or followed.get(key) != data:
        st.session_state[key] = default
    elif isinstance(default, list):
        kept = [v for v in value if v in options]
        if kept != list(value):
            st.session_state[key] = kept or default
    elif value not in options:
        st.session_state[key] = default
    followed[key] = data


def _or_first(default, options: list):
    """``default``, or the first option when it is None (None when there is no option)."""
    return default if default is not None else (options[0] if options else None)


def select(label: str, options: Sequence, *, key: str, default=None, where=st, **kwargs):
    """A select box whose value follows the data (:func:`follow`); ``default``: the value on new data (None: the
    first option). Other keyword arguments go to ``st.selectbox``. No option may be None: a select box shows the
    value None as an empty box (use 0 or a position, as the Segments page's "off" and "all documents" do)."""
    options = list(options)
    follow(key, options, _or_first(default, options))
    return where.selectbox(label, options, key=key, **kwargs)


def multiselect(label: str, options: Sequence, *, key: str, default: Sequence = (), where=st, **kwargs) -> list:
    """A multiselect whose value follows the data (:func:`follow`); ``default``: the choices on new data. Its label
    counts the choices (``Systems (10 of 10)``): in a column Streamlit keeps the chips on one line that scrolls,
    so most of them were out of sight with nothing saying so (issue 37: 2 of 10 systems shown, no "+8"). A
    multiselect keeps its identity by its key, so the changing label never resets it."""
    options = list(options)
    follow(key, options, [o for o in default if o in options])
    chosen = len(st.session_state.get(key) or ())
    if chosen:
        label = f"{label} ({chosen} of {len(options)})"
    return where.multiselect(label, options, key=key, **kwargs)


def _as_text(format_func: Callable, option) -> str:
    """``format_func(option)`` escaped for Markdown (:func:`mtdiag.core.highlight.escape_markdown`)."""
    return highlight.escape_markdown(format_func(option))


def as_text(format_func: Callable = str) -> Callable:
    """A ``format_func`` for options that Streamlit renders as Markdown (radio buttons, segmented controls): the
    text ``format_func`` gives, escaped — an option may name a system (``only [login](http://…)`` was a live link on
    the N-grams page, issue 39). A :func:`functools.partial` of a module function, never a closure of the page
    (module doc)."""
    return functools.partial(_as_text, format_func)


def segmented(label: str, options: Sequence, *, key: str, default=None, where=st, format_func: Callable = str,
              **kwargs):
    """A segmented control (one choice) whose value follows the data (:func:`follow`); ``default`` as in
    :func:`select`. Its options are shown as text (:func:`as_text`): they may hold names."""
    options = list(options)
    follow(key, options, _or_first(default, options))
    return where.segmented_control(label, options, key=key, format_func=as_text(format_func), **kwargs)


def radio(label: str, options: Sequence, *, key: str, default=None, where=st, format_func: Callable = str, **kwargs):
    """Radio buttons whose value follows the data (:func:`follow`); ``default`` as in :func:`select`. Its options are
    shown as text (:func:`as_text`): they may hold names."""
    options = list(options)
    follow(key, options, _or_first(default, options))
    return where.radio(label, options, key=key, format_func=as_text(format_func), **kwargs)


# --------------------------------------------------------------------------------------------- one segment


def evidence_tabs(detail: SegmentDetail, *, key: str) -> None:
    """The evidence tables of one output (edit alignment, over/under-matched n-grams, terms, human errors), one
    tab each."""
    if not detail.tables:
        return
    names = list(detail.tables)
    for name, tab in zip(names, st.tabs([detail.tables[n].title for n in names])):
        evidence = detail.tables[name]
        with tab:
            if evidence.frame is None or evidence.frame.empty:
                explain(highlight.escape_markdown(evidence.empty or "Nothing to show for this segment."))
                continue
            if evidence.caption:
                st.caption(highlight.escape_markdown(evidence.caption))  # it names references: user text
            if evidence.alignment:
                html(highlight.render_legend(["match", "substitute", "insert", "delete"]))
                html(highlight.render_alignment(evidence.frame[["op", "hyp", "ref"]].itertuples(index=False)))
            evidence_table(detail, name, key=f"{key}_{name}")


def evidence_table(detail: SegmentDetail, name: str, *, key: str) -> None:
    """One evidence table of one output (``alignment``, ``over``, ``terms``, …: :class:`mtdiag.views.SegmentDetail`)
    with its downloads, named for the table, the system and the segment."""
    table(detail.table(name), key=key, name=f"{name}_{detail.system}_{segment_number(detail.seg)}", max_height=260)


def sort_label(key: str) -> str:
    """A sort key of :func:`mtdiag.views.segments.sort_keys` as people read it."""
    return {"problem": "problem score", "human": "human score"}.get(key, metric_label(key))


def _output_label(row: pd.Series, sort_by: str, flags: Sequence[str], selected: bool) -> str:
    """``Hypothesis (system) ◀ selected · problem 0.930 · chrF ↑ 41.2 · human -5.00 · flags: a, b`` — the problem
    score, the score the outputs are sorted by, the human score and the flags (every score is in the table above
    the outputs); plain text, escaped by :mod:`mtdiag.core.highlight`."""
    parts = [f"Hypothesis ({row['system']}){' ◀ selected' if selected else ''}", f"problem {row['problem']:.3f}"]
    if sort_by not in ("problem", "human") and pd.notna(row[sort_by]):
        parts.append(f"{metric_label(sort_by)} {_info(sort_by).format(row[sort_by])}")
    if "human" in row.index and pd.notna(row["human"]):
        parts.append(f"human {views.format_score(row['human'])}")
    fired = [views.flag_label(f) for f in flags if bool(row[f])]
    if fired:
        parts.append("flags: " + ", ".join(fired))
    return " · ".join(parts)


def source_view(page, seg: int, selected: str | None = None, *, key: str, threshold: float) -> None:
    """One source with every system (the Segments page's :class:`~mtdiag.ui.page.Page`: its view's ``source``,
    ``sort_keys`` and ``score_columns`` details): the source and every reference, then every system's output
    stacked — each labelled with its problem score, sort score, human score and flags, its evidence (and the human
    error spans, when loaded) highlighted — sorted worst first by a chosen score; the ``selected`` system first and
    marked, its under-matched n-grams marked in the references, followed by its evidence tables
    (:func:`evidence_tabs`). The error spans mtdiag predicts are drawn when their confidence is at least
    ``threshold`` (the view option :data:`mtdiag.views.SPAN_THRESHOLD`). ``seg`` is the segment's 0-based
    position."""
    ev = page.current.evalset
    seg = int(seg)
    sort_by = select("Sort systems by", page.detail("sort_keys"), key=f"{key}_sort", format_func=sort_label,
                     help="worst first by this score (direction-aware)")
    rows = page.detail("source", seg + 1, sort_by)
    if selected in set(rows["system"]):
        rows = pd.concat([rows[rows["system"] == selected], rows[rows["system"] != selected]], ignore_index=True)
    else:
        selected = str(rows["system"].iloc[0])
    st.markdown(f"#### Segment {segment_number(seg)} · {highlight.escape_markdown(selected)}")
    st.caption(f"The source, every reference and all {len(rows)} systems' outputs, sorted by "
               f"{highlight.escape_markdown(sort_label(sort_by))} (worst first); the selected system comes first.")
    flags = flag_columns(rows)
    table(rows.drop(columns="hyp"), key=f"{key}_systems", name=f"segment_{segment_number(seg)}_systems",
          column_order=[c for c in ["system", "flags", "problem", "human", *page.detail("score_columns"), *flags]
                        if c in rows.columns])
    details = {s: page.segment_detail(s, seg, threshold) for s in rows["system"]}
    legend = list(dict.fromkeys(k for d in details.values() for k in d.legend))
    html(highlight.render_legend(legend))
    parts = [highlight.render_text(ev.src.iat[seg], label="Source")] if str(ev.src.iat[seg]).strip() else []
    chosen = details[selected]
    best_ref = chosen.facts.get("best_ref")
    for name, tokens in chosen.refs.items():
        best = ", closest for WAFT" if name == best_ref and len(chosen.refs) > 1 else ""
        parts.append(highlight.render_marked_text(ev.refs.at[seg, name], tokens.shown, chosen.ref_spans[name],
                                                  label=f"Reference {name} (marked: what {selected} misses{best})"))
    html("".join(parts))
    blocks = []
    for _, row in rows.iterrows():
        detail = details[row["system"]]
        blocks.append(highlight.render_marked_text(
            ev.hyps.at[seg, row["system"]], detail.hyp.shown, detail.hyp_spans,
            label=_output_label(row, sort_by, flags, row["system"] == selected)))
    html("<hr style='margin:0.3rem 0;opacity:0.3'>".join(blocks))
    st.markdown(f"##### Evidence of {highlight.escape_markdown(selected)}")
    evidence_tabs(details[selected], key=key)


def segment_list(current: state.Current, system: str, segments: Sequence[int], *, spans_for: Callable | None = None,
                 limit: int = 20, ref: str | None = None) -> None:
    """Several segments of one system (source, first reference, hypothesis), e.g. the segments an n-gram opens.
    ``spans_for(seg) -> (hyp_spans, ref_spans)`` adds highlights. ``ref`` may also name another system (shown in
    the reference's place, for system-vs-system views)."""
    ev = current.evalset
    segments = list(segments)
    if not segments:
        explain("No segment.")
        return
    if len(segments) > limit:
        st.caption(f"Showing the first {limit} of {len(segments):,} segments.")
    ref = ref or ev.ref_names[0]
    parts = []
    for seg in segments[:limit]:
        hyp_spans, ref_spans = spans_for(seg) if spans_for else ([], [])
        hyp_tokens = views.side_tokens(current.report, system, seg).shown
        ref_tokens = views.side_tokens(current.report, ref, seg).shown
        block = [f'<div class="mtd-note">segment {segment_number(seg)}</div>']
        if str(ev.src.iat[seg]).strip():
            block.append(highlight.render_text(ev.src.iat[seg], label="Source", max_chars=600))
        is_ref = ref in ev.ref_names
        block.append(highlight.render_marked_text(ev.refs.at[seg, ref] if is_ref else ev.hyps.at[seg, ref], ref_tokens,
                                                  ref_spans, label=f"Ref {ref}" if is_ref else ref, max_tokens=120))
        block.append(highlight.render_marked_text(ev.hyps.at[seg, system], hyp_tokens, hyp_spans,
                                                  label=system, max_tokens=120))
        parts.append("".join(block) + "<hr style='margin:0.4rem 0;opacity:0.3'>")
    html("".join(parts))


# --------------------------------------------------------------------------------------------- overview


BEST_STYLE = "background-color: rgba(37, 99, 235, 0.22); font-weight: 700;"


def overview_styler(corpus: pd.DataFrame, best: dict, marks: dict):
    """The corpus table (index system) as a pandas Styler: scores with their significance mark (``marks``: per metric
    and system ``▲``/``▼``/``=``), the best per metric shaded (``best``: per metric its best systems). (Sorting in
    the grid still uses the numbers.)"""
    styler = corpus.style
    for metric in corpus.columns:
        places = _info(metric).places
        for system in corpus.index:
            mark = marks.get(metric, {}).get(system, "")
            styler = styler.format(f"{{:.{places}f}}" + (f" {mark}" if mark else ""), na_rep="–",
                                   subset=pd.IndexSlice[[system], [metric]])
    return styler.apply(lambda col: [BEST_STYLE if s in best.get(col.name, ()) else "" for s in col.index], axis=0)


def overview_config(corpus: pd.DataFrame) -> dict:
    config = {"system": st.column_config.TextColumn("system")}
    for metric in corpus.columns:
        config[metric] = st.column_config.Column(metric_label(metric), help=metric_help(metric))
    return config


def corpus_table(current: state.Current, frame: pd.DataFrame, *, key: str, params: Sequence) -> None:
    """The Overview's corpus scores (its view's ``corpus`` table: ``system`` and a column per metric, what is best
    and what is significant in its ``attrs``), styled (:func:`overview_styler`, built once per ``params``)."""
    corpus = frame.set_index("system")
    st.dataframe(state.memo("overview_styler", current.key, tuple(params),
                            lambda: overview_styler(corpus, frame.attrs["best"], frame.attrs["marks"])),
                 column_config=overview_config(corpus), key=key)


# --------------------------------------------------------------------------------------------- sharing


def report_download(current: state.Current, *, key: str) -> None:
    """A button that downloads the self-contained HTML report (:func:`mtdiag.report.html_report.html_report`) of the current
    data and options; built on click, on Streamlit's download thread (the report's module is imported there too:
    it is not needed to draw the button)."""
    report, tags = current.report, current.tags
    name = re.sub(r"[^\w.-]+", "_", report.evalset.name)

    def build() -> str:
        from mtdiag.report.html_report import html_report

        return html_report(report, tags=tags)

    st.download_button("Download HTML report", data=build, file_name=f"mtdiag-report-{name}.html",
                       mime="text/html", key=key, icon=":material/share:",
                       help="One HTML file with the overview, ranked significance, buckets and the worst segments "
                            "with their evidence; opens in any browser, offline.")
