"""The sidebar's slice box: one expression every page follows (``docs/slices.md``).

The box holds a slice expression (:mod:`mtdiag.slices`: comparisons, ``and``/``or``/``not``, ``in``, ``~``
regular expressions over segment fields and ``metric[SYSTEM]`` values). :func:`apply` turns the loaded run into
the slice's: its report is :func:`mtdiag.pipeline.inputs.sliced` of the whole report (the input path every command takes:
the whole report scored with the metrics the expression's flags read) — corpus scores by each metric's corpus
formula on the slice's summed statistics, nothing scored again — so every page, chart, significance test and
download of this session shows the slice, and says how many segments it keeps (:func:`banner`).

The slice report is kept in the shared report store under the run's key plus the expression, and the digest of the
user's tags when there are any — the slice is given them (``tag == "x"``) — (several sessions asking for the same
slice of the same inputs share it; the store's size and time limits bound it like any report). An expression
that cannot be read, names a field the data lacks or keeps no segment gets a one-line message in the sidebar and
the page shows every segment: the data loaded stays in use. Saving a run (Saved runs) saves the whole set, never
the slice: the slice is a view of it.

A page link may carry a slice: ``/segments?where=EXPR`` opens the Segments page with ``EXPR`` in the box (the
parameter is then taken off the address). The slice finder (``mtdiag/ui/layouts/slices.py``) opens a slice it found
with such a link (:func:`slice_link`): a link is a navigation the browser makes, which keeps every widget of the
sidebar — the uploads among them. (``st.switch_page`` from inside a run starts the new page with the widgets'
state reset, which put an upload session back on the sample set.)
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from mtdiag.core import highlight
from mtdiag.pipeline import inputs
from mtdiag.pipeline.inputs import MAX_CHARS, ExpressionError
from mtdiag.ui import navigation, reports, state

WHERE_KEY = "slice_where"  # the text box's session key
EXAMPLE = 'src_len >= 20 and chrf[SYSTEM] < 40'
_PENDING = "_mtdiag_slice_pending"  # an expression to put into the box before it is drawn (open_slice)
PARAMETER = "where"  # the address's query parameter that carries a slice (slice_link)


def open_slice(expression: str) -> None:
    """Make ``expression`` the sidebar's slice from the next run on.

    A button callback may call it: the box takes it before it is drawn."""
    st.session_state[_PENDING] = expression


def within(where: str, expression: str) -> str:
    """The expression that selects ``expression``'s segments inside the slice ``where``.

    A slice found on a slice is the intersection of both; the whole set's when ``where`` is empty."""
    return f"({where}) and ({expression})" if where else expression


def slice_link(view: str, expression: str, label: str, help: str | None = None) -> None:
    """A link to view ``view``'s page that opens it with ``expression`` in the slice box."""
    navigation.link_to(view, label, help=help, query_params={PARAMETER: expression})


def _field_help(report) -> str:
    """The fields an expression may read on ``report``, as the box's help text (escaped: label names are data)."""
    lines = [f"- **{highlight.escape_markdown(f.written)}** ({f.kind}): {highlight.escape_markdown(f.description)}"
             for f in inputs.fields(report)]
    systems = ", ".join(highlight.escape_markdown(s) for s in report.evalset.systems)
    return ("Keep only the segments where the expression holds; every page follows. Comparisons (`<`, `<=`, `==`, "
            "`!=`, `>=`, `>`), `and`, `or`, `not`, `in (..)`, `~` (regular expression on a text); texts in double "
            "quotes. Fields:\n\n" + "\n".join(lines) + f"\n\nSystems: {systems}")


def current_expression() -> str | None:
    """The slice this run shows (None: every segment), read before the box is drawn.

    The loader scores with the metrics its flags read (:func:`mtdiag.pipeline.inputs.scoring`). A page link's slice
    (``?where=``, then taken off the address), else one a button put (:func:`open_slice`), else the box's."""
    if PARAMETER in st.query_params:  # a page link that carries a slice (slice_link), or an address typed so
        st.session_state[WHERE_KEY] = st.query_params[PARAMETER][:MAX_CHARS]
        del st.query_params[PARAMETER]
    if _PENDING in st.session_state:
        st.session_state[WHERE_KEY] = st.session_state.pop(_PENDING)
    return (st.session_state.get(WHERE_KEY) or "").strip() or None


def slice_box(current: state.Current) -> tuple[state.Current, str | None]:
    """Draw the box in the sidebar and return (the run restricted to its slice, a problem to show or None).

    An empty box, or one that cannot be used, leaves ``current`` as it is."""
    current_expression()
    sb = st.sidebar
    text = sb.text_input("Slice: only segments where …", key=WHERE_KEY, max_chars=MAX_CHARS,
                         placeholder=EXAMPLE.replace("SYSTEM", current.evalset.systems[0]),
                         help=_field_help(current.report))
    expression = (text or "").strip()
    if not expression:
        return current, None
    whole = current.evalset.n_segments
    sliced = replace(current, where=expression)
    try:
        report = reports.stored_report(sliced.key, lambda: inputs.sliced(current.report, expression, tags=current.tags))
    except (ExpressionError, ValueError) as error:
        return current, (f"The slice cannot be used: {highlight.escape_markdown(error)}  \n"
                         f"Every segment is shown ({whole:,}).")
    sliced = replace(sliced, report=report)
    sb.caption(f"The slice keeps **{report.evalset.n_segments:,}** of {whole:,} segments.")
    sb.button("Show every segment", key="slice_clear", on_click=open_slice, args=("",))
    state.set_current(sliced)
    return sliced, None


def banner(current: state.Current, whole: int) -> None:
    """A line above the page naming the slice and its size (nothing without a slice)."""
    if current.where:
        st.info(f"Slice **{highlight.escape_markdown(current.where)}**: {current.evalset.n_segments:,} of {whole:,} "
                "segments. Every number on this page is the slice's.", icon=":material/filter_alt:")
