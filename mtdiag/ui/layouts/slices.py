"""Slice finder: where is the gap between two systems unusual? Candidate slices ranked, each as the expression that
defines it and which way it departs, with paired significance corrected for the number of slices tried; a found
slice opens in the sidebar's slice box."""

import streamlit as st

from mtdiag.highlight import escape_markdown
from mtdiag.ui import choices, slicing, state, widgets
from mtdiag.views import slices

current = state.current()
report, ev = current.report, current.evalset
st.title(slices.VIEW.title)
st.caption("Where is the gap between two systems unusual: where does B catch up, win, or fall further behind? "
           "Every bucket, label value, flag, human score band and error category, and their pairwise intersections, "
           "are tried as slices; on each, both systems' corpus scores there and on the rest of the set, and the "
           "paired bootstrap p-value of the chosen test, corrected for the number of slices tried. Each slice is "
           "the expression that defines it: open it and every page shows that slice.")
if len(ev.systems) < 2:
    widgets.explain("The slice finder compares two systems: this data has one.")
    st.stop()
why = slices.VIEW.missing(report)
if why:
    widgets.explain(why)
    st.stop()

c1, c2, c3, c4, c5, c6 = st.columns([3, 3, 2, 2, 3, 2])
chosen: dict = {}
a = choices.choose(slices.VIEW, "a", current, chosen, key="sf_a", where=c1)
b = choices.choose(slices.VIEW, "b", current, chosen, key="sf_b", where=c2)
metric = choices.choose(slices.VIEW, "metric", current, chosen, key="sf_metric", where=c3)
min_size = choices.choose(slices.VIEW, "min_size", current, chosen, key="sf_min_size", where=c4)
correction = choices.choose(slices.VIEW, "correction", current, chosen, key="sf_correction", where=c5, help=None)
test = choices.choose(slices.VIEW, "test", current, chosen, key="sf_test", where=c6)

found = state.view(slices.found_slices, spinner="Testing every candidate slice …")(
    current, a, b, metric, min_size, correction, test)
info = found.attrs
label = widgets.metric_label(metric)
st.caption(f"{info['tried']:,} slices tried on {info['segments']:,} segments; {info['significant']:,} significant "
           f"after {escape_markdown(slices.CORRECTIONS[correction])} (corrected p < 0.05). Whole "
           f"{'slice' if current.where else 'set'}: {escape_markdown(a)} {info['score_a']:.2f}, "
           f"{escape_markdown(b)} {info['score_b']:.2f} {escape_markdown(label)}. {slices.RANKED[test]}.")
if found.empty:
    widgets.explain("No candidate slice is large enough: lower the minimum size.")
    st.stop()
shown = found.rename(columns={"score_a": f"{label} A", "score_b": f"{label} B"})
picked = widgets.table(shown, key="sf_table", name=f"slices_{a}_vs_{b}_{metric}", select=True, max_height=420,
                       config={"expression": st.column_config.TextColumn("expression", width="large"),
                               "rest_difference": st.column_config.NumberColumn("difference elsewhere",
                                                                                format="%.2f"),
                               "p_value": st.column_config.NumberColumn("p", format="%.4f"),
                               "p_corrected": st.column_config.NumberColumn("p corrected", format="%.4f")})
row = found.iloc[picked if picked is not None else 0]
expression = slices.within(current.where, str(row["expression"]))
st.markdown(f"**{escape_markdown(row['expression'])}** — {int(row['size']):,} segments: {escape_markdown(a)} "
            f"{row['score_a']:.2f}, {escape_markdown(b)} {row['score_b']:.2f} (difference {row['difference']:+.2f}, "
            f"{row['rest_difference']:+.2f} elsewhere: {escape_markdown(row['direction'])}; corrected p "
            f"{row['p_corrected']:.4f})")
slicing.slice_link("segments", expression, "Open this slice",
                   help="put its expression in the sidebar's slice box and show its segments")
