"""Slice finder: where is the gap between two systems unusual? Candidate slices ranked, each as the expression that
defines it and which way it departs, with paired significance corrected for the number of slices tried
(:mod:`mtdiag.views.slices`, laid out); a found slice opens in the sidebar's slice box."""

import streamlit as st

from mtdiag.core.highlight import escape_markdown
from mtdiag.ui import slicing, widgets
from mtdiag.ui.page import Page

COLUMN_ORDER = ("expression", "p_corrected", "significant", "direction", "departure", "size", "score_a", "score_b",
                "difference", "rest_difference", "p_value", "correction")

page = Page("slices")
page.header()
if not page.ready():
    st.stop()

c1, c2, c3, c4, c5, c6 = st.columns([3, 3, 2, 2, 3, 2])
a = page.choose("a", key="sf_a", where=c1)
b = page.choose("b", key="sf_b", where=c2)
metric = page.choose("metric", key="sf_metric", where=c3)
page.choose("min_size", key="sf_min_size", where=c4)
page.choose("correction", key="sf_correction", where=c5, help=None)
page.choose("test", key="sf_test", where=c6)

found = page.frame("slices", spinner="Testing every candidate slice …")
if found.empty:
    widgets.explain(page.view.table("slices").why_empty(page.report, page.chosen))
    st.stop()
label = widgets.metric_label(metric)
# what decides comes first: the corrected p beside the expression (at 1,600 px the last columns are out of sight,
# and an uncorrected p in view read as significant next to "0 significant"); the uncorrected p last, named so
picked = page.table("slices", key="sf_table", title=False, select=True, max_height=420, column_order=COLUMN_ORDER,
                    config={"expression": st.column_config.TextColumn("expression", width="large"),
                            "p_corrected": st.column_config.NumberColumn("p corrected", format="%.4f"),
                            "significant": st.column_config.CheckboxColumn("significant", width="small"),
                            "score_a": st.column_config.NumberColumn(f"{label} A", format="%.2f"),
                            "score_b": st.column_config.NumberColumn(f"{label} B", format="%.2f"),
                            "difference": st.column_config.NumberColumn("difference", format="%.2f"),
                            "rest_difference": st.column_config.NumberColumn("difference elsewhere", format="%.2f"),
                            "departure": st.column_config.NumberColumn("departure", format="%.2f"),
                            "p_value": st.column_config.NumberColumn("p uncorrected", format="%.4f")})
row = found.iloc[picked if picked is not None else 0]
expression = slicing.within(page.current.where, str(row["expression"]))
st.markdown(f"**{escape_markdown(row['expression'])}** — {int(row['size']):,} segments: {escape_markdown(a)} "
            f"{row['score_a']:.2f}, {escape_markdown(b)} {row['score_b']:.2f} (difference {row['difference']:+.2f}, "
            f"{row['rest_difference']:+.2f} elsewhere: {escape_markdown(row['direction'])}; corrected p "
            f"{row['p_corrected']:.4f})")
slicing.slice_link("segments", expression, "Open this slice",
                   help="put its expression in the sidebar's slice box and show its segments")
