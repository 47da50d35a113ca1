"""Distributions: every segment metric per system (box or violin plots), and any two metrics against each other."""

import streamlit as st

from mtdiag import charts, diagnose
from mtdiag.metrics import metric_info
from mtdiag.ui import state, widgets

current = state.current()
report = current.report
st.title("Distributions")
st.caption("How each system's segment scores spread, not only their corpus value: a system can win on average "
           "and still have more disasters.")
metrics = [m for m in report.metrics if metric_info(m, report).segment_level and m in report.segments.columns]
if not metrics:
    widgets.explain("No segment-level metric was computed for this data.")
    st.stop()

c1, c2 = st.columns([3, 1])
metric = c1.selectbox("Metric", metrics, key="dist_metric", format_func=widgets.metric_label)
kind = c2.segmented_control("Plot", ["box", "violin"], default="box", key="dist_kind", required=True)
scores = state.view(diagnose.segment_scores)(current, metric)
widgets.chart(current, "metric_box", (metric, kind), lambda: charts.metric_box(scores, metric, kind, within=report),
              key="dist_box")
st.caption("Box: median and quartiles, whiskers at 1.5 × the interquartile range, points beyond them drawn, "
           "dashed line = mean.")
widgets.table(state.view(diagnose.distribution_summary)(current, metric).reset_index(), key="dist_summary",
              name=f"{metric}_distribution")

st.subheader("One metric against another")
c1, c2 = st.columns(2)
x = c1.selectbox("x", metrics, key="dist_x", format_func=widgets.metric_label,
                 index=metrics.index("chrf") if "chrf" in metrics else 0)
y = c2.selectbox("y", metrics, key="dist_y", format_func=widgets.metric_label,
                 index=metrics.index("ter") if "ter" in metrics else min(1, len(metrics) - 1))
points = state.view(diagnose.metric_pairs)(current, x, y)
widgets.chart(current, "metric_scatter", (x, y), lambda: charts.metric_scatter(points, x, y, within=report),
              key="dist_scatter")
total = points.attrs.get("total", len(points))
st.caption(f"Showing {len(points):,} of {total:,} segments" + (" (a random sample)." if len(points) < total else "."))
