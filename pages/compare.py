"""Compare: two systems — per-metric difference with significance, segments where they differ most, and both
outputs aligned under the source and references with their differences highlighted."""

import streamlit as st

from mtdiag import compare, diagnose, highlight
from mtdiag import charts
from mtdiag.ui import state, widgets

current = state.current()
report, ev = current.report, current.evalset
st.title("Compare")
if len(ev.systems) < 2:
    widgets.explain("Comparing needs two systems; this data has one. Add a system output in the sidebar.")
    st.stop()

c1, c2, c3 = st.columns([2, 2, 2])
a = c1.selectbox("System A", ev.systems, index=0, key="cmp_a")
b = c2.selectbox("System B", [s for s in ev.systems if s != a], index=0, key="cmp_b")
method = c3.selectbox("Test", ["bs", "ar"], key="cmp_method",
                      format_func=widgets.TEST_METHODS.__getitem__)

st.subheader("Per metric")
sig = state.view(compare.significance, spinner=state.SIGNIFICANCE_SPINNER)(current, b, method, systems=(a,))
diff = diagnose.pair_differences(report, a, b, sig)
st.caption("difference = A − B; p from the paired test with B as the baseline; 'better' names the system the "
           "metric prefers (p < 0.05: significant).")
widgets.table(diff, key="cmp_metrics", name=f"compare_{a}_vs_{b}",
              config={a: st.column_config.NumberColumn(f"A: {a}", format="%.4f"),
                      b: st.column_config.NumberColumn(f"B: {b}", format="%.4f")})

st.subheader("Segments where they differ most")
metric = st.selectbox("By", report.metrics, index=report.metrics.index("chrf") if "chrf" in report.metrics else 0,
                      key="cmp_metric", format_func=widgets.metric_label)
segs = state.view(diagnose.segment_differences)(current, a, b, metric)
widgets.chart(current, "difference", (a, b, metric), lambda: charts.difference_area(segs, a, b), key="cmp_bars")
picked = widgets.table(segs, key="cmp_segs", name=f"segments_{a}_vs_{b}_{metric}", select=True, height=320)

if len(segs):
    seg = int(segs.iloc[picked if picked is not None else 0]["seg"])
    st.markdown(f"**Segment {highlight.segment_number(seg)}**"
                + ("" if picked is not None else " — the largest difference; select another row in the table"))
    ta, tb, spans_a, spans_b = state.view(diagnose.hypothesis_diff)(current, a, b, seg)
    widgets.html(highlight.render_legend(["diff"]))
    parts = []
    if str(ev.src.iat[seg]).strip():
        parts.append(highlight.render_text(ev.src.iat[seg], label="Source"))
    for ref in ev.ref_names:
        parts.append(highlight.render_text(ev.refs.at[seg, ref], label=f"Reference {ref}"))
    parts.append(highlight.render_marked_text(ev.hyps.at[seg, a], ta.shown, spans_a, label=f"A: {a}"))
    parts.append(highlight.render_marked_text(ev.hyps.at[seg, b], tb.shown, spans_b, label=f"B: {b}"))
    widgets.html("".join(parts))
