"""WAFT vs NEVA: per-segment scatter, NEVA > WAFT and what it does and does not mean, edit operations and alignments."""

import streamlit as st

from mtdiag import charts, highlight
from mtdiag.ui import choices, state, widgets
from mtdiag.views import waft_neva
from mtdiag.views.detail import segment_detail

current = state.current()
report, ev = current.report, current.evalset
st.title(waft_neva.VIEW.title)
st.caption("WAFT (1 − word edit distance / longer length) punishes words in the wrong place; NEVA (mean n-gram "
           "precision) does not. Forsbom (2003 §5) reads NEVA > WAFT as the right words in the wrong order; measured "
           "against human judgements, that reading does not hold for today's systems.")
with st.expander("What NEVA > WAFT does and does not mean (measured)"):
    st.markdown(highlight.escape_markdown(waft_neva.NEVA_ABOVE_WAFT))
if widgets.reference_needed(current):
    st.stop()
if not {"waft", "neva"} <= set(report.metrics):
    widgets.explain("WAFT and NEVA were not computed for this data.")
    st.stop()

frame = state.view(waft_neva.word_order_table, spinner="Finding outputs whose words are in an order no reference has …")(current)
systems = widgets.multiselect("Systems", ev.systems, default=ev.systems, key="wn_systems")
frame = frame[frame["system"].isin(systems)]
points = waft_neva.sample_rows(frame)
widgets.chart(current, "waft_neva_scatter", systems, lambda: charts.waft_neva_scatter(points, seg_ids=current.evalset.seg_ids), key="wn_scatter")
if len(points) < len(frame):
    st.caption(f"Showing a random sample of {len(points):,} of {len(frame):,} segments (one mass otherwise); the "
               "table below has them all.")

st.subheader("Disagreeing segments")
reverse = st.toggle("WAFT > NEVA first (the opposite disagreement, e.g. short outputs)", key="wn_reverse")
if reverse:
    frame = frame.iloc[::-1]
counts = waft_neva.disagreement(frame)
st.caption(f"{counts['neva_above']:,} of {counts['rows']:,} rows have NEVA > WAFT (the shaded half of the chart); "
           f"{counts['word_order']:,} have shared words in an order no reference has, in two or more places "
           "(word_order: they come first). Select a row for its alignment.")
picked = widgets.table(frame.reset_index(drop=True), key="wn_table", name="waft_neva_segments", select=True,
                       max_height=320, page_size=1000,
                       column_order=["system", "seg", "waft", "neva", "neva_minus_waft", "word_order", "hyp"])
if len(frame):
    row = frame.iloc[picked if picked is not None else 0]
    system, seg = str(row["system"]), int(row["seg"])
    detail = state.view(segment_detail)(current, system, seg)
    best_ref, alignment = detail.facts.get("best_ref"), detail.table("alignment")
    st.markdown(f"**Alignment of segment {widgets.segment_number(seg)} ({highlight.escape_markdown(system)}) "
                f"against reference {highlight.escape_markdown(best_ref)}**"
                + ("" if picked is not None else " — the top row; select another in the table"))
    widgets.html(highlight.render_legend(["match", "substitute", "insert", "delete"]))
    widgets.html(highlight.render_alignment(alignment[["op", "hyp", "ref"]].itertuples(index=False)))
    with widgets.panel("Alignment table", key="wn_align_panel") as alignment_table:
        if alignment_table.open:
            widgets.table(alignment, key="wn_align", name=f"alignment_{system}_{widgets.segment_number(seg)}")

st.subheader("Edit operations over the corpus")
widgets.chart(current, "op_bars", (), lambda: charts.op_bars(state.view(waft_neva.op_counts)(current)), key="wn_ops")
c1, c2 = st.columns([3, 2])
chosen: dict = {}
system = choices.choose(waft_neva.VIEW, "system", current, chosen, key="wn_system", where=c1, help=None)
hide = choices.choose(waft_neva.VIEW, "hide_function_words", current, chosen, key="wn_hide", where=c2)
tables = state.view(waft_neva.edit_tables)(current, system, top=None, hide_function_words=hide)
c1, c2, c3 = st.columns(3)
with c1:
    st.markdown("**Confusion pairs** (hyp → ref)")
    widgets.table(tables["substitute"], key="wn_sub", page_size=500, name=f"confusion_pairs_{system}", max_height=320)
with c2:
    st.markdown("**Insertions** (only in the output)")
    widgets.table(tables["insert"], key="wn_ins", page_size=500, name=f"insertions_{system}", max_height=320)
with c3:
    st.markdown("**Deletions** (reference words missing)")
    widgets.table(tables["delete"], key="wn_del", page_size=500, name=f"deletions_{system}", max_height=320)
