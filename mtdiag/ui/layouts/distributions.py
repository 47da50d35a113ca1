"""Distributions: every segment metric per system (box or violin plots), and any two metrics against each other."""

import streamlit as st

from mtdiag import charts
from mtdiag.ui import choices, state, widgets
from mtdiag.views import distributions

current = state.current()
report = current.report
st.title(distributions.VIEW.title)
st.caption("How each system's segment scores spread, not only their corpus value: a system can win on average "
           "and still have more disasters.")
why = distributions.VIEW.missing(report)
if why:
    widgets.explain(why)
    st.stop()

c1, c2 = st.columns([3, 1])
chosen: dict = {}
metric = choices.choose(distributions.VIEW, "metric", current, chosen, key="dist_metric", where=c1)
kind = choices.choose(distributions.VIEW, "plot", current, chosen, key="dist_kind", where=c2, widget="segmented")
scores = state.view(distributions.segment_scores)(current, metric)
widgets.chart(current, "metric_box", (metric, kind), lambda: charts.metric_box(scores, metric, kind, within=report, seg_ids=report.evalset.seg_ids),
              key="dist_box")
st.caption("Box: median and quartiles, whiskers at 1.5 × the interquartile range, points beyond them drawn, "
           "dashed line = mean. When a few scores lie far out, the axis stops at their 1st/99th percentile and "
           "they are drawn at its edge (▲/▼, hover for the value), so one outlier cannot squash every box; the "
           "boxes and the table below use every score.")
widgets.table(state.view(distributions.distribution_summary)(current, metric).reset_index(), key="dist_summary",
              name=f"{metric}_distribution")

st.subheader("One metric against another")
c1, c2 = st.columns(2)
x = choices.choose(distributions.VIEW, "x", current, chosen, key="dist_x", where=c1, help=None)
y = choices.choose(distributions.VIEW, "y", current, chosen, key="dist_y", where=c2, help=None)
points = state.view(distributions.metric_pairs)(current, x, y)
widgets.chart(current, "metric_scatter", (x, y), lambda: charts.metric_scatter(points, x, y, within=report, seg_ids=report.evalset.seg_ids),
              key="dist_scatter")
total = points.attrs.get("total", len(points))
st.caption(f"Showing {len(points):,} of {total:,} segments" + (" (a random sample)." if len(points) < total else "."))
