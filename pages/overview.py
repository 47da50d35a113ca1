"""Overview: every corpus score per system, the best per metric, bar charts, and significance vs a baseline."""

import streamlit as st

from mtdiag import compare, diagnose
from mtdiag import charts
from mtdiag.ui import state, widgets

current = state.current()
report = current.report
systems = current.evalset.systems
st.title("Overview")
widgets.report_download(current, key="ov_report")
st.caption("One row per system, every corpus score. ↑ higher is better, ↓ lower is better; the best system per "
           "metric is shaded. ▲/▼: significantly better/worse than the baseline (p < 0.05), = the baseline.")

cols = st.columns([2, 2, 3])
baseline = cols[0].selectbox("Baseline", ["(none)", *systems], index=1 if len(systems) > 1 else 0,
                             key="ov_baseline", help="Paired significance test of every system against this one.")
method = cols[1].selectbox("Test", ["bs", "ar"], key="ov_method",
                           format_func=widgets.TEST_METHODS.__getitem__)
sig = state.view(compare.significance, spinner=state.SIGNIFICANCE_SPINNER)(current, baseline, method) if baseline != "(none)" else None

corpus = diagnose.corpus_table(report)
best = diagnose.best_mask(corpus)
st.dataframe(state.memo("overview_styler", current.key, (baseline, method),
                        lambda: widgets.overview_styler(corpus, best, diagnose.significance_marks(corpus, sig))),
             column_config=widgets.overview_config(corpus), key="ov_table")
widgets.downloads(corpus, "corpus_scores", "ov_table")

st.subheader("Corpus scores")
errors = diagnose.intervals(sig) if sig is not None else None
widgets.chart(current, "corpus_bars", (baseline, method),
              lambda: charts.corpus_bars(corpus, best, errors), key="ov_bars")
if sig is not None:
    st.caption("Error bars: 95% paired-bootstrap confidence intervals.")

left, right = st.columns(2)
with left:
    st.subheader("Best system per metric")
    widgets.table(diagnose.best_systems(corpus), key="ov_best", name="best_per_metric")
with right:
    st.subheader("Significance against the baseline")
    if sig is None:
        widgets.explain("Choose a baseline to test every system against it.")
    else:
        widgets.table(diagnose.significance_table(sig), key="ov_sig", name=f"significance_vs_{baseline}",
                      height=320)
with st.expander("Metric signatures"):
    for metric, signature in compare.report_signatures(report, sig).items():
        st.code(f"{widgets.metric_label(metric, arrow=False)}: {signature}", language=None)
