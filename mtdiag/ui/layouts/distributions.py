"""Distributions: every segment metric per system (box or violin plots), and any two metrics against each other —
:mod:`mtdiag.views.distributions`, laid out."""

import streamlit as st

from mtdiag.ui.page import Page

page = Page("distributions")
page.header()
if not page.ready():
    st.stop()

c1, c2 = st.columns([3, 1])
page.choose("metric", key="dist_metric", where=c1)
page.choose("plot", key="dist_kind", where=c2, widget="segmented")
page.chart("box", key="dist_box", caption=True)
page.table("summary", key="dist_summary", title=False)

st.subheader(page.view.chart("scatter").title)
c1, c2 = st.columns(2)
page.choose("x", key="dist_x", where=c1, help=None)
page.choose("y", key="dist_y", where=c2, help=None)
page.chart("scatter", key="dist_scatter", caption=True)
