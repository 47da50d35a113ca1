"""Compare: two systems — per-metric difference with significance, the segments where their outputs differ most
with the better one marked (closer to the reference, or without one to the other systems), and both outputs side by
side under the source and references with their differences highlighted — :mod:`mtdiag.views.compare`, laid out."""

import streamlit as st

from mtdiag.core import highlight
from mtdiag.ui import widgets
from mtdiag.ui.page import Page
from mtdiag.ui.state import SIGNIFICANCE_SPINNER

ROW_HEIGHT = 72  # pixels: three lines of wrapped text per row (Streamlit wraps in rows taller than 64 px)
MAX_HEIGHT = 480
TEXT_WIDTH = 230  # pixels per text column: the reference and both outputs side by side at 1,600 px (the source,
# both problem scores and every text in full are in the detail below and in the download)

page = Page("compare")
ev = page.current.evalset
page.header()
if not page.ready():
    st.stop()

c1, c2, c3 = st.columns([2, 2, 2])
a = page.choose("a", key="cmp_a", where=c1)
b = page.choose("b", key="cmp_b", where=c2)
page.choose("method", key="cmp_method", where=c3, help=None)
bias_note = page.detail("bias_note", a, b)
if bias_note:  # a reference made from one of the two systems' outputs: its scores favour that one
    st.warning(highlight.escape_markdown(bias_note), icon=":material/balance:")

page.table("metrics", key="cmp_metrics", spinner=SIGNIFICANCE_SPINNER,
           config={a: st.column_config.NumberColumn(f"A: {a}", format="%.4f"),
                   b: st.column_config.NumberColumn(f"B: {b}", format="%.4f")})

st.subheader(page.view.table("segments").title)
metric = page.choose("metric", key="cmp_metric", help=None)
page.caption("segments")
segs = page.frame("segments")
page.chart("difference", key="cmp_bars")
text = st.column_config.TextColumn
picked = page.table(
    "segments", key="cmp_segs", title=False, caption=False, select=True, max_height=MAX_HEIGHT,
    row_height=ROW_HEIGHT,
    column_order=["seg_id", "closer", "problem_difference", f"{metric} {a}", f"{metric} {b}", "ref", f"hyp {a}",
                  f"hyp {b}"],
    config={"closer": text("closer", help=f"the output {highlight.escape_markdown(widgets.metric_label(metric))} "
                                          f"puts {page.detail('closer_to')}"),
            "problem_difference": st.column_config.NumberColumn(
                "problem A − B", format="%.3f", help="> 0: A's output is the worse one (problem score, 0–1)"),
            f"{metric} {a}": st.column_config.NumberColumn(f"{widgets.metric_label(metric)} A",
                                                           format=widgets.number_format(metric)),
            f"{metric} {b}": st.column_config.NumberColumn(f"{widgets.metric_label(metric)} B",
                                                           format=widgets.number_format(metric)),
            "ref": text(f"reference {ev.ref_names[0]}" if ev.ref_names else "reference", width=TEXT_WIDTH),
            f"hyp {a}": text(f"A: {a}", width=TEXT_WIDTH), f"hyp {b}": text(f"B: {b}", width=TEXT_WIDTH)})

if len(segs):
    row = segs.iloc[picked if picked is not None else 0]
    seg = page.position(row["seg_id"])
    st.markdown(f"**Segment {widgets.segment_number(seg)}**"
                + ("" if picked is not None else " — the largest difference; select another row in the table"))
    ta, tb, spans_a, spans_b = page.detail("differences", a, b, seg)
    widgets.html(highlight.render_legend(["diff"]))
    parts = []
    if str(ev.src.iat[seg]).strip():
        parts.append(highlight.render_text(ev.src.iat[seg], label="Source"))
    for ref in ev.ref_names:
        parts.append(highlight.render_text(ev.refs.at[seg, ref], label=f"Reference {ref}"))
    widgets.html("".join(parts))
    label = widgets.metric_label(metric)
    for side, (name, tokens, spans) in zip(st.columns(2), ((a, ta, spans_a), (b, tb, spans_b))):
        mark = f" ✔ {page.detail('closer_to')}" if row["closer"] == name else ""
        score = widgets.metric_value(metric, row[f"{metric} {name}"])
        caption = (f"{'A' if name == a else 'B'}: {name}{mark} · {label} {score} · problem "
                   f"{row[f'problem {name}']:.3f}")
        with side:
            widgets.html(highlight.render_marked_text(ev.hyps.at[seg, name], tokens.shown, spans, label=caption))
