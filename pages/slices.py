"""Slice finder: where do two systems differ most? Candidate slices ranked, each as the expression that defines it,
with paired significance corrected for the number of slices tried; a found slice opens in the sidebar's slice box."""

import streamlit as st

from mtdiag import views
from mtdiag.highlight import escape_markdown
from mtdiag.ui import slicing, state, widgets
from mtdiag.views import slices

current = state.current()
report, ev = current.report, current.evalset
st.title("Slice finder")
st.caption("Where do two systems differ most? Every bucket, label value, flag, human score band and error category, "
           "and their pairwise intersections, are tried as slices; on each, both systems' corpus scores and the "
           "paired bootstrap p-value, corrected for the number of slices tried. Each slice is the expression that "
           "defines it: open it and every page shows that slice.")
if len(ev.systems) < 2:
    widgets.explain("The slice finder compares two systems: this data has one.")
    st.stop()
metrics = slices.finder_metrics(report)
if not metrics:
    widgets.explain("No metric computed here has per-segment statistics to compare two systems on a slice.")
    st.stop()

c1, c2, c3, c4, c5 = st.columns([3, 3, 2, 2, 3])
a = widgets.select("System A", ev.systems, key="sf_a", where=c1)
b = widgets.select("System B", [s for s in ev.systems if s != a], key="sf_b", where=c2)
metric = widgets.select("Metric", metrics, key="sf_metric", where=c3, default=views.default_metric(metrics),
                        format_func=widgets.metric_label)
min_size = int(c4.number_input("Minimum size", min_value=1, max_value=max(1, ev.n_segments),
                               value=min(slices.DEFAULT_MIN_SIZE, max(1, ev.n_segments // 4)), key="sf_min_size",
                               help="a slice is tried when it keeps at least this many segments (and not all)"))
correction = widgets.select("Correction", list(slices.CORRECTIONS), key="sf_correction", where=c5,
                            format_func=slices.CORRECTIONS.__getitem__)

found = state.view(slices.found_slices, spinner="Testing every candidate slice …")(
    current, a, b, metric, min_size, correction)
info = found.attrs
label = widgets.metric_label(metric)
st.caption(f"{info['tried']:,} slices tried on {info['segments']:,} segments; {info['significant']:,} significant "
           f"after {escape_markdown(slices.CORRECTIONS[correction])} (corrected p < 0.05). Whole "
           f"{'slice' if current.where else 'set'}: {escape_markdown(a)} {info['score_a']:.2f}, "
           f"{escape_markdown(b)} {info['score_b']:.2f} {escape_markdown(label)}. Largest difference first among the "
           "significant, then the others.")
if found.empty:
    widgets.explain("No candidate slice is large enough: lower the minimum size.")
    st.stop()
shown = found.rename(columns={"score_a": f"{label} A", "score_b": f"{label} B"})
picked = widgets.table(shown, key="sf_table", name=f"slices_{a}_vs_{b}_{metric}", select=True, max_height=420,
                       config={"expression": st.column_config.TextColumn("expression", width="large"),
                               "p_value": st.column_config.NumberColumn("p", format="%.4f"),
                               "p_corrected": st.column_config.NumberColumn("p corrected", format="%.4f")})
row = found.iloc[picked if picked is not None else 0]
expression = slices.within(current.where, str(row["expression"]))
st.markdown(f"**{escape_markdown(row['expression'])}** — {int(row['size']):,} segments: {escape_markdown(a)} "
            f"{row['score_a']:.2f}, {escape_markdown(b)} {row['score_b']:.2f} (difference {row['difference']:+.2f}, "
            f"corrected p {row['p_corrected']:.4f})")
if st.button("Open this slice", key="sf_open", type="primary",
             help="put its expression in the sidebar's slice box and show its segments"):
    slicing.open_slice(expression)
    st.switch_page("pages/segments.py")
