"""Compare: two systems — per-metric difference with significance, the segments where their outputs differ most
(by problem score, :func:`mtdiag.views.compare.segment_differences`) with the better one marked (closer to the
reference, or without one to the other systems: :func:`mtdiag.views.compare.closer_to`), and
both outputs side by side under the source and references with their differences highlighted."""

import streamlit as st

from mtdiag import charts, highlight
from mtdiag.significance import significance
from mtdiag.metrics import metric_info
from mtdiag.ui import choices, state, widgets
from mtdiag.views import compare

ROW_HEIGHT = 72  # pixels: three lines of wrapped text per row (Streamlit wraps in rows taller than 64 px)
MAX_HEIGHT = 480
TEXT_WIDTH = 230  # pixels per text column: the reference and both outputs side by side at 1,600 px (the source,
# both problem scores and every text in full are in the detail below and in the download)

current = state.current()
report, ev = current.report, current.evalset
st.title(compare.VIEW.title)
if len(ev.systems) < 2:
    widgets.explain("Comparing needs two systems; this data has one. Add a system output in the sidebar.")
    st.stop()

c1, c2, c3 = st.columns([2, 2, 2])
chosen: dict = {}
a = choices.choose(compare.VIEW, "a", current, chosen, key="cmp_a", where=c1)
b = choices.choose(compare.VIEW, "b", current, chosen, key="cmp_b", where=c2)
method = choices.choose(compare.VIEW, "method", current, chosen, key="cmp_method", where=c3, help=None)

st.subheader("Per metric")
sig = state.view(significance, spinner=state.SIGNIFICANCE_SPINNER)(current, b, method, systems=(a,))
diff = compare.pair_differences(report, a, b, sig)
st.caption("difference = A − B; p from the paired test with B as the baseline; 'better' names the system the "
           "metric prefers (p < 0.05: significant).")
widgets.table(diff, key="cmp_metrics", name=f"compare_{a}_vs_{b}",
              config={a: st.column_config.NumberColumn(f"A: {a}", format="%.4f"),
                      b: st.column_config.NumberColumn(f"B: {b}", format="%.4f")})

st.subheader("Segments where they differ most")
st.caption("Largest difference of the two outputs' problem scores first (each output's badness among every output "
           "of this set, as in the Segments queue): one output fine and the other bad comes first, not a two-word "
           "greeting whose single-metric score swings from 0 to 100. 'closer' names the output the chosen metric "
           f"puts {compare.closer_to(report)}; the chart shows that metric's advantage per segment.")
metric = choices.choose(compare.VIEW, "metric", current, chosen, key="cmp_metric", help=None)
segs = state.view(compare.segment_differences)(current, a, b, metric)
widgets.chart(current, "difference", (a, b, metric), lambda: charts.difference_area(segs, a, b, seg_ids=report.evalset.seg_ids), key="cmp_bars")
text = st.column_config.TextColumn
picked = widgets.table(
    segs, key="cmp_segs", name=f"segments_{a}_vs_{b}", select=True, max_height=MAX_HEIGHT, row_height=ROW_HEIGHT,
    column_order=["seg", "closer", "problem_difference", f"{metric} {a}", f"{metric} {b}", "ref", f"hyp {a}",
                  f"hyp {b}"],
    config={"closer": text("closer", help=f"the output {highlight.escape_markdown(widgets.metric_label(metric))} "
                                          f"puts {compare.closer_to(report)}"),
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
    seg = int(row["seg"])
    st.markdown(f"**Segment {widgets.segment_number(seg)}**"
                + ("" if picked is not None else " — the largest difference; select another row in the table"))
    ta, tb, spans_a, spans_b = state.view(compare.hypothesis_diff)(current, a, b, seg)
    widgets.html(highlight.render_legend(["diff"]))
    parts = []
    if str(ev.src.iat[seg]).strip():
        parts.append(highlight.render_text(ev.src.iat[seg], label="Source"))
    for ref in ev.ref_names:
        parts.append(highlight.render_text(ev.refs.at[seg, ref], label=f"Reference {ref}"))
    widgets.html("".join(parts))
    info = metric_info(metric, report)
    for side, (name, tokens, spans) in zip(st.columns(2), ((a, ta, spans_a), (b, tb, spans_b))):
        mark = f" ✔ {compare.closer_to(report)}" if row["closer"] == name else ""
        score = info.format(row[f"{metric} {name}"])
        label = (f"{'A' if name == a else 'B'}: {name}{mark} · {info.arrow_label} {score} · problem "
                 f"{row[f'problem {name}']:.3f}")
        with side:
            widgets.html(highlight.render_marked_text(ev.hyps.at[seg, name], tokens.shown, spans, label=label))
