"""Buckets: every metric per group of segments (source length, reference length, rare words, documents, human
score bands, error categories), and two systems compared inside each bucket — :mod:`mtdiag.views.buckets`, laid
out."""

import streamlit as st

from mtdiag.ui.page import Page
from mtdiag.ui.state import SIGNIFICANCE_SPINNER

page = Page("buckets")
page.header()

c1, c2 = st.columns(2)
by = page.choose("by", key="bk_by", where=c1, help=None)
metric = page.choose("metric", key="bk_metric", where=c2, help=None)
page.frame("buckets")  # when the data lacks the dimension, the page says so and stops here
page.chart("bucket_bars", key="bk_chart")
page.table("buckets", key="bk_table", title=False, excel=True, max_height=360)

if page.view.option("a").applies(page.report):
    st.subheader(page.view.table("comparison").title)
    c1, c2, c3 = st.columns([2, 2, 1])
    page.choose("a", key="bk_a", where=c1)
    page.choose("b", key="bk_b", where=c2)
    page.choose("method", key="bk_method", where=c3, help=None)
    page.table("comparison", key="bk_sig", title=False, max_height=300, spinner=SIGNIFICANCE_SPINNER)
