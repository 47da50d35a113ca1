"""WAFT vs NEVA: per-segment scatter, NEVA > WAFT and what it does and does not mean, edit operations and alignments
— :mod:`mtdiag.views.waft_neva`, laid out; a row opens its alignment."""

import streamlit as st

from mtdiag.core import highlight
from mtdiag.ui import widgets
from mtdiag.ui.page import Page

page = Page("waft_neva")
page.header()
page.notes()
if not page.ready():
    st.stop()

page.choose("systems", key="wn_systems", help=None)
with st.spinner("Finding outputs whose words are in an order no reference has …"):  # the flag, on the first visit
    page.chart("scatter", key="wn_scatter", caption=True)

st.subheader(page.view.table("segments").title)
page.choose("reverse", key="wn_reverse", help=None)
frame = page.frame("segments")
picked = page.table("segments", key="wn_table", title=False, select=True, max_height=320, page_size=1000,
                    column_order=["system", "seg_id", "waft", "neva", "neva_minus_waft", "word_order", "hyp"])
if len(frame):
    row = frame.iloc[picked if picked is not None else 0]
    system, seg = str(row["system"]), page.position(row["seg_id"])
    detail = page.segment_detail(system, seg)
    best_ref, alignment = detail.facts.get("best_ref"), detail.table("alignment")
    st.markdown(f"**Alignment of segment {widgets.segment_number(seg)} ({highlight.escape_markdown(system)}) "
                f"against reference {highlight.escape_markdown(best_ref)}**"
                + ("" if picked is not None else " — the top row; select another in the table"))
    widgets.html(highlight.render_legend(["match", "substitute", "insert", "delete"]))
    widgets.html(highlight.render_alignment(alignment[["op", "hyp", "ref"]].itertuples(index=False)))
    with widgets.panel("Alignment table", key="wn_align_panel") as panel:
        if panel.open:  # drawn only while open (widgets.panel)
            widgets.evidence_table(detail, "alignment", key="wn_align")

st.subheader(page.view.chart("op_bars").title)
page.chart("op_bars", key="wn_ops")
c1, c2 = st.columns([3, 2])
page.choose("system", key="wn_system", where=c1, help=None)
page.choose("hide_function_words", key="wn_hide", where=c2)
for column, (name, key) in zip(st.columns(3), (("substitute", "wn_sub"), ("insert", "wn_ins"), ("delete", "wn_del"))):
    with column:
        st.markdown(f"**{page.view.table(name).title}**")
        page.table(name, key=key, title=False, page_size=500, max_height=320)
