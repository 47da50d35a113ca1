"""Overview: every corpus score per system, the best per metric, bar charts, and significance vs a baseline."""

import streamlit as st

from mtdiag import charts, significance, export
from mtdiag.highlight import escape_markdown
from mtdiag.ui import choices, state, widgets
from mtdiag.views import overview

current = state.current()
report = current.report
systems = current.evalset.systems
st.title(overview.VIEW.title)
widgets.report_download(current, key="ov_report")
st.caption("One row per system, every corpus score. ↑ higher is better, ↓ lower is better; the best system per "
           "metric is shaded. ▲/▼: significantly better/worse than the baseline (p < 0.05), = the baseline.")

cols = st.columns([2, 2, 3])
chosen: dict = {}
baseline = choices.choose(overview.VIEW, "baseline", current, chosen, key="ov_baseline", where=cols[0])
method = choices.choose(overview.VIEW, "method", current, chosen, key="ov_method", where=cols[1])
ranked_by = choices.choose(overview.VIEW, "rank_by", current, chosen, key="ov_rank", where=cols[2])
sig = (state.view(significance.significance, spinner=state.SIGNIFICANCE_SPINNER)(current, baseline, method)
       if baseline != overview.NO_BASELINE else None)

corpus = overview.ranked(report, ranked_by)
best = overview.best_mask(corpus, report)
st.dataframe(state.memo("overview_styler", current.key, (baseline, method, ranked_by),
                        lambda: widgets.overview_styler(corpus, best, overview.significance_marks(corpus, sig))),
             column_config=widgets.overview_config(corpus), key="ov_table")
row = st.container(horizontal=True, gap="small")
with row:
    widgets.downloads(corpus, "corpus_scores", "ov_table", excel=True, json=True)
    st.download_button("LaTeX", key="dl_latex_ov_table", on_click="ignore", icon=":material/download:",
                       data=lambda: export.latex_table(corpus, sig, signatures=significance.report_signatures(report, sig),
                                                          within=report),
                       file_name="corpus_scores.tex", mime="text/x-tex",
                       help="A booktabs table of the corpus scores; with a baseline, 95% intervals, † where a "
                            "system is significantly better than it and ‡ where it is significantly worse. "
                            "Signatures as % comments.")

st.subheader("Corpus scores")
errors = overview.intervals(sig) if sig is not None else None
widgets.chart(current, "corpus_bars", (baseline, method),
              lambda: charts.corpus_bars(corpus, best, errors, within=report), key="ov_bars")
if sig is not None:
    st.caption("Error bars: 95% paired-bootstrap confidence intervals.")

st.subheader(f"Ranked significance: {escape_markdown(widgets.metric_label(ranked_by))}")
if len(systems) < 2:
    widgets.explain("One system: nothing to rank.")
else:
    st.caption("Systems best first. A system opens a new cluster when it is significantly worse (p < 0.05) than the "
               "one above it (WMT-style clusters); the matrix gives the p-value of every pair (row system tested "
               "against the column system).")
    pairwise = state.view(significance.pairwise_significance, spinner=state.SIGNIFICANCE_SPINNER)(
        current, method, None, significance.DEFAULT_SEED, metrics=[ranked_by])
    clusters = state.view(significance.ranked_clusters)(current, pairwise)
    left, right = st.columns([2, 3])
    with left:
        widgets.table(clusters.drop(columns="metric"), key="ov_clusters", name=f"clusters_{ranked_by}", max_height=380)
    with right:
        order = list(clusters["system"])
        matrix = export.pairwise_matrix(pairwise).loc[ranked_by].reindex(index=order, columns=order)
        widgets.chart(current, "pvalue_heatmap", (ranked_by, method),
                      lambda: charts.pvalue_heatmap(matrix, clusters), key="ov_matrix")

left, right = st.columns([2, 3])
with left:
    st.subheader("Best system per metric")
    widgets.table(overview.best_systems(corpus, report), key="ov_best", name="best_per_metric")
with right:
    st.subheader("Significance against the baseline")
    if sig is None:
        widgets.explain("Choose a baseline to test every system against it.")
    else:
        widgets.table(overview.significance_table(sig), key="ov_sig", name=f"significance_vs_{baseline}",
                      max_height=420)
with widgets.panel("Metric signatures", key="ov_signatures") as signatures:
    if signatures.open:
        st.code("\n".join(f"{widgets.metric_label(metric, arrow=False)}: {signature}"
                          for metric, signature in significance.report_signatures(report, sig).items()), language=None)
