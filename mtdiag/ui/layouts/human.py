"""Human scores & likeness: ORANGE/KING per metric, QUEEN per system, agreement with human scores, human error
statistics and the error spans per severity — :mod:`mtdiag.views.human`, laid out in four sections."""

import streamlit as st

from mtdiag.core import needs
from mtdiag.core.highlight import escape_markdown
from mtdiag.ui import widgets
from mtdiag.ui.page import Page

page = Page("human")
report, ev = page.report, page.current.evalset
page.header()

sections = page.detail("sections")
section = widgets.segmented("View", list(sections), key="hl_section", required=True,
                            default=page.detail("opening_section"), format_func=sections.__getitem__)
if section in ("likeness", "queen") and widgets.reference_needed(page.current):
    st.stop()

if section == "likeness":
    page.choose("similarity", key="hl_metrics", help=None)
    table = page.frame("orange_king", spinner="Scoring each reference against the others (ORANGE/KING) …",
                       optional=True)  # the table below says why there is none
    page.table("orange_king", key="hl_ok", title=False)
    if table is not None:
        with st.container(border=True):
            st.markdown("**In plain words**")
            for sentence in page.detail("plain_words", table):
                st.markdown(f"- {escape_markdown(sentence)}")
        left, right = st.columns(2)
        page.chart("orange", key="hl_orange", where=left)
        page.chart("king", key="hl_king", where=right)
        with widgets.panel(page.view.table("king_segments").title, key="hl_king_panel") as panel:
            if panel.open:  # drawn only while open (widgets.panel)
                page.table("king_segments", key="hl_king_segments", title=False, max_height=300)

elif section == "queen":
    c1, c2 = st.columns([3, 1])
    page.choose("similarity", key="hl_queen_metrics", where=c1, label="Metric set X", help=None)
    page.choose("pool", key="hl_pool", where=c2)
    table = page.frame("queen", spinner="Scoring systems and references against each reference (QUEEN) …",
                       optional=True)
    page.table("queen", key="hl_queen", title=False)
    if table is not None:
        page.chart("queen", key="hl_queen_bars")
        with widgets.panel(page.view.table("queen_segments").title, key="hl_queen_panel") as panel:
            if panel.open:
                page.table("queen_segments", key="hl_queen_segments", title=False, max_height=300)

elif section == "errors":
    if not needs.lacking(ev, None, ["annotations"]):
        page.choose("level", key="hl_err_level", widget="segmented", help=None)
        page.table("error_counts", key="hl_err_counts", excel=True)
        page.table("error_raters", key="hl_err_raters", excel=True)
        page.table("error_significance", key="hl_err_significance", excel=True,
                   spinner="Testing every pair of systems per category …")
        st.subheader("mtdiag's spans against these human spans")
        c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
        page.choose("span_threshold", key="hl_agreement_threshold", widget="slider", where=c2)
        page.caption("span_agreement", where=c1)
        page.table("span_agreement", key="hl_span_agreement", title=False, caption=False, excel=True,
                   spinner="Measuring the predicted spans …")
    else:
        widgets.explain(escape_markdown(needs.NEEDS["annotations"].lacking()))
    st.subheader(page.view.table("span_counts").title)
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    page.choose("span_threshold", key="hl_span_threshold", widget="slider", where=c2)
    page.caption("span_counts", where=c1)
    page.table("span_counts", key="hl_span_counts", title=False, caption=False, excel=True)

else:
    if needs.lacking(ev, None, ["human"]):
        widgets.explain(escape_markdown(needs.NEEDS["human"].lacking()))
        st.stop()
    page.table("agreement", key="hl_agreement")
    page.choose("metric", key="hl_metric", help=None)
    left, right = st.columns(2)
    with left:
        st.markdown(f"**{page.view.chart('human_segments').title}**")
        page.chart("human_segments", key="hl_seg_scatter")
    with right:
        st.markdown(f"**{page.view.chart('human_systems').title}**")
        page.chart("human_systems", key="hl_sys_scatter")
    page.table("ranking", key="hl_ranking")
