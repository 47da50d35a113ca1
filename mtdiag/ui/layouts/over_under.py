"""Over/under-translation: OTEM/UTEM per segment and system, mp_n per order, and the n-grams behind them."""

import streamlit as st

from mtdiag import charts, highlight
from mtdiag.ui import choices, state, widgets
from mtdiag.views import over_under

current = state.current()
report, ev = current.report, current.evalset
st.title(over_under.VIEW.title)
st.caption("OTEM counts repeated (over-matched) n-grams of the output; UTEM counts reference n-grams the output "
           "misses (under-matched). Both 0–100, lower is better (Yang et al. 2018). A segment's score is 0 as "
           "soon as one order has nothing over/under-matched, so read the n-grams, not only the score.")

if widgets.reference_needed(current):
    st.stop()
why = over_under.VIEW.missing(report)
if why:
    widgets.explain(why)
    st.stop()
chosen: dict = {}
metric = choices.choose(over_under.VIEW, "metric", current, chosen, key="ou_metric", widget="segmented")
word = "over" if metric == "otem" else "under"

st.subheader("Per system")
widgets.table(state.view(over_under.distribution_summary)(current, metric).reset_index(), key="ou_summary",
              name=f"{metric}_summary")
left, right = st.columns(2)
with left:
    st.markdown("**Segment scores** (one box per system: median, quartiles, outliers; dashed = mean)")
    scores = state.view(over_under.segment_scores)(current, metric)
    widgets.chart(current, "metric_box", (metric, "box"), lambda: charts.metric_box(scores, metric, seg_ids=current.evalset.seg_ids), key="ou_dist")
with right:
    st.markdown(f"**mp_n per order** (share of {word}-matched n-grams)")
    mp = state.view(over_under.mp_per_order)(current, metric)
    widgets.chart(current, "mp_bars", (metric,), lambda: charts.mp_bars(mp, metric), key="ou_mp")
with widgets.panel("mp_n table", key="ou_mp_panel") as mp_table:
    if mp_table.open:
        widgets.table(mp, key="ou_mp_table", name=f"{metric}_mp_per_order")

st.subheader(f"Most frequent {word}-matched n-grams")
c1, c2 = st.columns([3, 2])
system = choices.choose(over_under.VIEW, "system", current, chosen, key="ou_system", where=c1, help=None)
hide = choices.choose(over_under.VIEW, "hide_function_words", current, chosen, key="ou_hide", where=c2)
grams = state.view(over_under.evidence_ngrams)(current, metric, system, hide_function_words=hide)
st.caption(f"{len(grams):,} distinct n-grams. Select one to see its segments.")
picked = widgets.table(grams, key=f"ou_grams_{metric}", name=f"{metric}_ngrams_{system}", select=True, max_height=320,
                       page_size=1000)
if picked is not None:
    gram = grams.iloc[picked]
    evidence = report.evidence(metric, system)
    segments = over_under.ngram_segments(evidence, gram["ngram"], int(gram["order"]))
    st.markdown(f"**Segments with “{highlight.escape_markdown(gram['ngram'])}”** ({len(segments)})")

    def spans(seg):
        return over_under.ngram_highlights(report, system, seg, gram["ngram"])

    widgets.html(highlight.render_legend(["ngram"]))
    widgets.segment_list(current, system, segments, spans_for=spans)
else:
    widgets.explain("Select an n-gram in the table to list the segments where it is " + word + "-matched.")
