"""Segments: triage every (system, segment) — scores, flags, worst first — and open one with its evidence."""

import streamlit as st

from mtdiag import diagnose
from mtdiag.ui import state, widgets

current = state.current()
report, ev = current.report, current.evalset
st.title("Segments")
st.caption("Every segment of every system, worst first by the problem score (the mean badness percentile of TER, "
           "chrF and OTEM in this test set; see docs/triage.md). Flags say why. Click a column header to sort, "
           "filter below, select a row to open it.")

with st.expander("MT-only n-grams and score ranges"):
    mt_order = st.selectbox("MT-only n-gram order", [1, 2, 3, 4, None], key="seg_mt_order",
                            format_func={None: "off", **{o: f"{o}-grams" for o in (1, 2, 3, 4)}}.__getitem__,
                            help="Flag outputs containing an n-gram the system uses ≥ 2 times and the human "
                                 "translation (first reference) never uses.")
    metric_for_range = st.selectbox("Filter by the score of", ["(none)", *report.metrics], key="seg_range_metric",
                                    format_func={"(none)": "(none)",
                                                 **{m: widgets.metric_label(m) for m in report.metrics}}.__getitem__)

table = state.view(diagnose.segment_table)(current, mt_only_order=mt_order)
flags = diagnose.flag_columns(table)

ranges = {}
if metric_for_range != "(none)":
    values = table[metric_for_range].dropna()
    if len(values) and values.min() < values.max():
        low, high = float(values.min()), float(values.max())
        ranges[metric_for_range] = st.slider(f"{widgets.metric_label(metric_for_range)} range", low, high,
                                             (low, high), key="seg_range")

c1, c2, c3 = st.columns([2, 2, 3])
systems = c1.multiselect("Systems", ev.systems, default=ev.systems, key="seg_systems")
chosen_flags = c2.multiselect("Flags (any of)", flags, key="seg_flags",
                              format_func={f: diagnose.FLAGS[f].label for f in flags}.__getitem__)
text = c3.text_input("Search source, references and output", key="seg_text",
                     placeholder="a word or phrase, case-insensitive")
shown = diagnose.filter_segments(table, ev, systems=systems, flags=chosen_flags, text=text, ranges=ranges)
st.caption(f"{len(shown):,} of {len(table):,} rows")

order = ["rank", "system", "seg", "problem", "flags", *report.metrics,
         *(["neva_minus_waft"] if "neva_minus_waft" in shown.columns else []), "hyp", "src"]
picked = widgets.table(shown.reset_index(drop=True), key="seg_table", name="segments", select=True, excel=True,
                       height=420, column_order=[c for c in order if c in shown.columns])

if len(shown):
    row = shown.iloc[picked if picked is not None else 0]
    if picked is None:
        st.caption("Showing the first row; select a row in the table to open another.")
    widgets.segment_detail(current, str(row["system"]), int(row["seg"]), key="seg_detail")
else:
    widgets.explain("No row matches these filters.")
