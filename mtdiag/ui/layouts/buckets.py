"""Buckets: every metric per group of segments (source length, reference length, rare words, documents, human
score bands, error categories), and two systems compared inside each bucket."""

import streamlit as st

from mtdiag import charts
from mtdiag.highlight import escape_markdown
from mtdiag.ui import choices, state, widgets
from mtdiag.views import buckets

current = state.current()
report, ev = current.report, current.evalset
st.title(buckets.VIEW.title)
st.caption("Where does each system do well or badly? Segments grouped along one dimension; every metric is "
           "computed by its corpus formula inside each group (statistics summed, not segment scores averaged), as "
           "compare-mt does.")

c1, c2 = st.columns(2)
chosen: dict = {}
by = choices.choose(buckets.VIEW, "by", current, chosen, key="bk_by", where=c1, help=None)
metric = choices.choose(buckets.VIEW, "metric", current, chosen, key="bk_metric", where=c2, help=None)

try:
    table = state.view(buckets.bucket_table)(current, by)
except ValueError as exc:
    st.error(escape_markdown(str(exc)))
    st.stop()
widgets.chart(current, "bucket_bars", (by, metric), lambda: charts.bucket_bars(table, metric, within=report),
              key="bk_chart")
widgets.table(table, key="bk_table", name=f"buckets_{by.replace(':', '_')}", excel=True, max_height=360)

if len(ev.systems) >= 2:
    st.subheader("Two systems, bucket by bucket")
    c1, c2, c3 = st.columns([2, 2, 1])
    a = choices.choose(buckets.VIEW, "a", current, chosen, key="bk_a", where=c1)
    b = choices.choose(buckets.VIEW, "b", current, chosen, key="bk_b", where=c2)
    method = choices.choose(buckets.VIEW, "method", current, chosen, key="bk_method", where=c3, help=None)
    sig = state.view(buckets.bucket_comparison, spinner=state.SIGNIFICANCE_SPINNER)(current, by, a, b, method, metric)
    st.caption(f"{escape_markdown(widgets.metric_label(metric))} of A and B in each bucket; better: +1 A is better, -1 B is better "
               "(p < 0.05 marks it significant).")
    widgets.table(sig, key="bk_sig", name=f"bucket_significance_{by.replace(':', '_')}", max_height=300)
