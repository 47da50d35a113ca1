"""Over/under-translation: OTEM/UTEM per segment and system, mp_n per order, and the n-grams behind them —
:mod:`mtdiag.views.over_under`, laid out; an n-gram opens the segments it is over- or under-matched in."""

import streamlit as st

from mtdiag.core import highlight
from mtdiag.ui import widgets
from mtdiag.ui.page import Page

page = Page("over_under")
page.header()
if not page.ready():
    st.stop()
metric = page.choose("metric", key="ou_metric", widget="segmented")
word = "over" if metric == "otem" else "under"

page.table("summary", key="ou_summary", caption=False)
left, right = st.columns(2)
with left:
    st.markdown(f"**{page.view.chart('box').title}**")
    page.chart("box", key="ou_dist")
with right:
    st.markdown(f"**mp_n per order** (share of {word}-matched n-grams)")
    page.chart("mp_bars", key="ou_mp")
with widgets.panel("mp_n table", key="ou_mp_panel") as panel:
    if panel.open:  # drawn only while open (widgets.panel)
        page.table("mp_per_order", key="ou_mp_table", title=False)

st.subheader(f"Most frequent {word}-matched n-grams")
c1, c2 = st.columns([3, 2])
system = page.choose("system", key="ou_system", where=c1, help=None)
page.choose("hide_function_words", key="ou_hide", where=c2)
grams = page.frame("ngrams")
picked = page.table("ngrams", key=f"ou_grams_{metric}", title=False, select=True, max_height=320, page_size=1000)
if picked is not None:
    gram = grams.iloc[picked]
    segments = page.detail("segments", metric, system, gram["ngram"], int(gram["order"]))
    st.markdown(f"**Segments with “{highlight.escape_markdown(gram['ngram'])}”** ({len(segments)})")
    widgets.html(highlight.render_legend(["ngram"]))
    widgets.segment_list(page.current, system, segments,
                         spans_for=lambda seg: page.detail("highlights", system, seg, gram["ngram"]))
else:
    widgets.explain("Select an n-gram in the table to list the segments where it is " + word + "-matched.")
