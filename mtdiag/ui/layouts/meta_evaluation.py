"""Metrics vs humans: every metric against the human scores with intervals and clusters, the same per group, the
human system scores as published, and where a chosen metric disagrees most with the people (the selected output
drawn with its human error spans and the metric's own) — :mod:`mtdiag.views.meta_evaluation`, laid out."""

import streamlit as st

from mtdiag.core import highlight
from mtdiag.ui import widgets
from mtdiag.ui.page import Page

STATISTICS = ("segment_pearson", "within_segment_accuracy", "system_accuracy", "system_pearson", "acc_t")
SHORT = {"segment_pearson": "seg r", "within_segment_accuracy": "within-seg acc", "system_accuracy": "sys acc",
         "system_pearson": "sys r", "acc_t": "acc-t"}
ROW_HEIGHT = 72  # three wrapped lines: the output and the error spans of a disagreement
TEXT_WIDTH = 300

page = Page("meta_evaluation")
ev = page.current.evalset
page.header()
if not page.ready():
    st.stop()

c1, c2, c3 = st.columns([3, 1, 1])
page.choose("statistic", key="me_statistic", where=c1)
page.choose("samples", key="me_samples", where=c2)
page.choose("seed", key="me_seed", where=c3)
number = st.column_config.NumberColumn
config = {"metric": st.column_config.TextColumn("metric", pinned=True)}
for name in STATISTICS:
    config |= {name: number(SHORT[name], format="%.3f"), f"{name}_low": number("low", format="%.3f"),
               f"{name}_high": number("high", format="%.3f"),
               f"{name}_rank": number("rank", format="%d", help="WMT-style cluster: 1 = tied with the best")}
config |= {"acc_t_epsilon": number("ε", format="%.4g", help="acc-t's tie threshold on the metric's scale")}
metrics = page.frame("metrics", spinner="Resampling the source segments …")
order = ["metric", "source", *[c for s in STATISTICS for c in (s, f"{s}_low", f"{s}_high", f"{s}_rank")],
         "acc_t_epsilon", "items", "systems"]
page.table("metrics", key="me_metrics", max_height=460, config=config,  # columns this data leaves empty: hidden
           column_order=[c for c in order if metrics is None or metrics[c].notna().any()])

with widgets.panel(page.view.chart("intervals").title, key="me_chart_panel") as panel:
    if panel.open:
        page.chart("intervals", key="me_chart")

st.subheader(page.view.table("groups").title)
page.choose("group_by", key="me_group_by", help=None)
page.table("groups", key="me_groups", title=False, max_height=360,
           config={name: number(SHORT[name], format="%.3f") for name in STATISTICS})

st.subheader(page.view.table("disagreements").title)
c1, c2 = st.columns([3, 1])
metric = page.choose("metric", key="me_metric", where=c1, help=None)
page.choose("rows", key="me_rows", where=c2)
rows = page.frame("disagreements")
text = st.column_config.TextColumn
picked = page.table(
    "disagreements", key="me_disagreements", title=False, select=True, max_height=420, row_height=ROW_HEIGHT,
    column_order=["system", "seg_id", "gap", "human", "score", "human_errors", "metric_errors", "output"],
    config={"gap": number("gap", format="%+.2f", help="metric percentile − human percentile: > 0 the metric is "
                                                       "kinder than the people, < 0 harsher"),
            "human": number("human", format="%.2f"), "score": number(widgets.metric_label(metric) if metric else "",
                                                                     format="%.4g"),
            "human_errors": text("human error spans", width=TEXT_WIDTH),
            "metric_errors": text("metric spans", width=180), "output": text("output", width=TEXT_WIDTH)})
if rows is not None and len(rows):
    row = rows.iloc[picked if picked is not None else 0]
    seg, system = page.position(row["seg_id"]), row["system"]
    st.markdown(f"**Segment {widgets.segment_number(seg)} · {highlight.escape_markdown(system)}**"
                + ("" if picked is not None else " — the largest disagreement; select another row in the table"))
    threshold = page.chosen.get("span_threshold", page.view.option("span_threshold").default)
    tokens, spans, legend = page.detail("marked_output", system, seg, metric, threshold)
    widgets.html(highlight.render_legend(legend))
    parts = [highlight.render_text(ev.src.iat[seg], label="Source")] if str(ev.src.iat[seg]).strip() else []
    parts += [highlight.render_text(ev.refs.at[seg, ref], label=f"Reference {ref}") for ref in ev.ref_names]
    label = (f"{system} · human {row['human']:.2f} · {widgets.metric_label(metric)} "
             f"{widgets.metric_value(metric, row['score'])}")
    parts.append(highlight.render_marked_text(ev.hyps.at[seg, system], tokens.shown, spans, label=label))

    widgets.html("".join(parts))

page.table("systems", key="me_systems", max_height=360,
           config={"published": number("published", format="%.4f"), "mean": number("mean", format="%.4f")})
