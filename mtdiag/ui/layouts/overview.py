"""Overview: every corpus score per system, the best per metric, bar charts, and significance vs a baseline — the
tables and charts of :mod:`mtdiag.views.overview`, laid out."""

import streamlit as st

from mtdiag.report import export
from mtdiag.core.highlight import escape_markdown
from mtdiag.ui import widgets
from mtdiag.ui.state import SIGNIFICANCE_SPINNER
from mtdiag.ui.page import Page

page = Page("overview")
report = page.report
page.header()
widgets.report_download(page.current, key="ov_report")

cols = st.columns([2, 2, 3])
baseline = page.choose("baseline", key="ov_baseline", where=cols[0])
method = page.choose("method", key="ov_method", where=cols[1])
ranked_by = page.choose("rank_by", key="ov_rank", where=cols[2])

bias_warning = page.detail("bias_warning")
if bias_warning:  # a reference made from a system's output: said above the scores it distorts
    st.warning(escape_markdown(bias_warning), icon=":material/balance:")
    with widgets.panel(page.view.table("bias_rankings").title, key="ov_bias_panel") as panel:
        if panel.open:  # drawn only while open (widgets.panel): the other references are scored again
            page.table("bias_rankings", key="ov_bias_rankings", title=False, max_height=420)
corpus = page.frame("corpus", spinner=SIGNIFICANCE_SPINNER)
significance = page.frame("significance", spinner=SIGNIFICANCE_SPINNER, optional=True)  # with a baseline only
signatures = page.frame("signatures")
widgets.corpus_table(page.current, corpus, key="ov_table", params=(baseline, method, ranked_by))
row = st.container(horizontal=True, gap="small")
with row:
    widgets.downloads(corpus, "corpus_scores", "ov_table", excel=True, json=True)
    st.download_button("LaTeX", key="dl_latex_ov_table", on_click="ignore", icon=":material/download:",
                       data=lambda: export.latex_table(
                           corpus.set_index("system"),
                           None if significance is None else significance.set_index(["system", "metric"]),
                           signatures=dict(zip(signatures["metric"], signatures["signature"])), within=report),
                       file_name="corpus_scores.tex", mime="text/x-tex",
                       help="A booktabs table of the corpus scores; with a baseline, 95% intervals, † where a "
                            "system is significantly better than it and ‡ where it is significantly worse. "
                            "Signatures as % comments.")
page.caption("corpus", corpus)  # what the predicted score columns are good for, when the report has one

st.subheader(page.view.chart("corpus_bars").title)
page.chart("corpus_bars", key="ov_bars", caption=True)

st.subheader(f"{page.view.table('clusters').title}: {escape_markdown(widgets.metric_label(ranked_by))}")
if len(report.evalset.systems) < 2:
    widgets.explain("One system: nothing to rank.")
else:
    page.caption("clusters")
    left, right = st.columns([2, 3])
    page.table("clusters", key="ov_clusters", title=False, caption=False, where=left, max_height=380,
               spinner=SIGNIFICANCE_SPINNER)
    page.chart("pvalue_heatmap", key="ov_matrix", where=right)

left, right = st.columns([2, 3])
page.table("best", key="ov_best", where=left)
page.table("significance", key="ov_sig", where=right, max_height=420)
if len(report.evalset.systems) > 1 and report.evalset.has_references:
    with widgets.panel(page.view.table("reference_bias").title, key="ov_reference_bias") as panel:
        if panel.open:  # drawn only while open (widgets.panel); the warning above says when it matters
            page.table("reference_bias", key="ov_bias", title=False,
                       config={"p": st.column_config.NumberColumn("p", format="%.1e",
                                                                  help="Fisher's exact test, Holm-corrected")})
with widgets.panel(page.view.table("signatures").title, key="ov_signatures") as panel:
    if panel.open:  # drawn only while open (widgets.panel): the syntax highlighting of every signature is slow
        st.code("\n".join(f"{widgets.metric_label(metric, arrow=False)}: {signature}"
                          for metric, signature in zip(signatures["metric"], signatures["signature"])), language=None)
