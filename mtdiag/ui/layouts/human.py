"""Human likeness (ORANGE/KING per metric, QUEEN per system) and agreement with human scores."""

import streamlit as st

from mtdiag import charts
from mtdiag.highlight import escape_markdown
from mtdiag.ui import choices, state, widgets
from mtdiag.views import human

SPAN_AGREEMENT_TEXT = (
    "The error spans mtdiag predicts (at the confidence on the right) measured against the human spans of the rated "
    "outputs, per system and over all — the measures of docs/spans.md: precision (share of predicted spans that "
    "overlap a human span), major recall, character precision/recall/F1 and the share of characters marked, and "
    "the WMT23 character F1 with severity (sev_*); beside them the predicted MQM of those outputs and their human "
    "score (MQM: minus the weighted errors; ESA: 0–100). After a Pearmut campaign with mtdiag's spans pre-filled, the "
    "annotators saw the predictions: a kept span counts as agreement, so these figures are an upper bound of what "
    "independent annotators would confirm (docs/pearmut.md).")

current = state.current()
report, ev = current.report, current.evalset
st.title(human.VIEW.title)
st.caption("With several references, a good metric should score a human translation at least as high as the "
           "systems (ORANGE: how often; KING: how often above every system), and a human-like system should be as "
           "close to a reference as the other references are (QUEEN) — Amigó et al. 2006. With human scores, "
           "how well each metric agrees with them.")

section = widgets.segmented("View", list(human.SECTIONS), key="hl_section", required=True,
                            default=human.opening_section(report), format_func=human.SECTIONS.__getitem__)
if section in ("likeness", "queen") and widgets.reference_needed(current):
    st.stop()
chosen: dict = {}

if section == "likeness":
    metrics = choices.choose(human.VIEW, "similarity", current, chosen, key="hl_metrics", help=None)
    if not metrics:
        widgets.explain("Choose at least one metric.")
        st.stop()
    result = state.view(human.report_orange_king, spinner="Scoring each reference against the others (ORANGE/KING) …")(current, tuple(metrics))
    if result.explanation:
        widgets.explain(f"{result.explanation}. This set has {len(ev.ref_names)} reference"
                        f"{'s' if len(ev.ref_names) != 1 else ''}; pick a set with several (e.g. wmt21.en-de).")
    else:
        st.caption(f"A random metric has ORANGE 0.5 and KING 1/{len(ev.systems)} = {1 / len(ev.systems):.3f}. "
                   "tie_share: comparisons where human and system score exactly the same (ties count for the "
                   "human).")
        table = result.table.reset_index()
        widgets.table(table, key="hl_ok", name="orange_king")
        with st.container(border=True):
            st.markdown("**In plain words**")
            for sentence in human.plain_words(result.table, len(ev.systems), ev):
                st.markdown(f"- {escape_markdown(sentence)}")
        left, right = st.columns(2)
        widgets.chart(current, "orange", metrics, lambda: charts.likeness_bars(table, "orange", "metric", "ORANGE", 0.5),
                      key="hl_orange", where=left)
        widgets.chart(current, "king", metrics,
                      lambda: charts.likeness_bars(table, "king", "metric", "KING", 1 / len(ev.systems)),
                      key="hl_king", where=right)
        with widgets.panel("KING per segment", key="hl_king_panel") as king_segments:
            if king_segments.open:
                widgets.table(result.segments.reset_index(), key="hl_king_segments", name="king_per_segment",
                              max_height=300)

elif section == "queen":
    c1, c2 = st.columns([3, 1])
    metrics = choices.choose(human.VIEW, "similarity", current, chosen, key="hl_queen_metrics", where=c1,
                             label="Metric set X", help=None)
    pool = choices.choose(human.VIEW, "pool", current, chosen, key="hl_pool", where=c2)
    if not metrics:
        widgets.explain("Choose at least one metric.")
        st.stop()
    result = state.view(human.report_queen, spinner="Scoring systems and references against each reference (QUEEN) …")(current, tuple(metrics), pool)
    if result.explanation:
        widgets.explain(f"{result.explanation}. This set has {len(ev.ref_names)} reference"
                        f"{'s' if len(ev.ref_names) != 1 else ''}.")
    else:
        table = result.systems.rename("queen").reset_index()
        st.caption("QUEEN: share of reference triples ⟨r, r′, r″⟩ where the system is at least as close to r as "
                   "r′ is to r″ on every metric of X.")
        widgets.table(table, key="hl_queen", name="queen")
        widgets.chart(current, "queen", (*metrics, pool), lambda: charts.likeness_bars(table, "queen", "system", "QUEEN"),
                      key="hl_queen_bars")
        with widgets.panel("QUEEN per segment", key="hl_queen_panel") as queen_segments:
            if queen_segments.open:
                widgets.table(result.segments.reset_index(), key="hl_queen_segments", name="queen_per_segment",
                              max_height=300)

elif section == "errors":
    if human.has_error_annotations(report):
        level = choices.choose(human.VIEW, "level", current, chosen, key="hl_err_level", widget="segmented",
                               help=None)
        st.subheader("Errors per system and category")
        st.caption("Every rater's errors (No-error and neutral rows are no errors); per_100: errors per 100 rated "
                   "segments of the system; one column per severity.")
        widgets.table(state.view(human.error_counts)(current, level), key="hl_err_counts", name="error_counts",
                      excel=True)
        st.subheader("Per rater")
        raters = state.view(human.error_raters)(current)
        st.caption("Per rater and system: rated segments, errors, errors per 100 segments and the mean MQM score "
                   "(minus the summed error weights; a clean output scores 0)."
                   + (f" Note: {raters.attrs['note']}." if raters.attrs.get("note") else ""))
        widgets.table(raters, key="hl_err_raters", name="error_raters", excel=True)
        st.subheader("Significance between systems, per category")
        significance = state.view(human.error_significance,
                                  spinner="Testing every pair of systems per category …")(current, level)
        attrs = significance.attrs
        st.caption(f"Exact paired permutation test (sign flip) of the per-segment error count over the segments "
                   f"both systems were rated on; p_holm: Holm-corrected over {attrs['tests']:,} tests (categories × "
                   f"pairs with an error); significant: p_holm < {attrs['alpha']}: "
                   f"{int(significance['significant'].sum()):,} of them.")
        widgets.table(significance, key="hl_err_significance", name="error_significance", excel=True)
        st.subheader("mtdiag's spans against these human spans")
        c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
        c1.caption(SPAN_AGREEMENT_TEXT)
        agreement_threshold = choices.choose(human.VIEW, "span_threshold", current, {}, key="hl_agreement_threshold",
                                             widget="slider", where=c2)
        widgets.table(state.view(human.span_agreement, spinner="Measuring the predicted spans …")(
            current, agreement_threshold), key="hl_span_agreement", name="span_agreement", excel=True)
    else:
        widgets.explain(
            "This data has no human error annotations for its systems. Load an MQM error TSV (`mqm.errors.tsv` in a "
            "test-set folder, or upload one under *Human error spans and metric scores* in the sidebar) or an ESA "
            "file with error spans.")
    st.subheader("Error spans per system and severity")
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    c1.caption("Critical, major and minor error spans per system: those mtdiag predicts (metric `mtdiag`, at the "
               "confidence set on the right; docs/spans.md), those the raters marked (`human`, over the rated "
               "outputs) and those each imported metric predicted (e.g. xCOMET, uploaded under *Human error spans "
               "and metric scores*). mqm: predicted MQM of mtdiag's spans (minus the confidence-weighted count, "
               "minor 1, major 5, critical 10, and the missing reference words, per output) beside the human MQM "
               "score.")
    threshold = choices.choose(human.VIEW, "span_threshold", current, chosen, key="hl_span_threshold",
                               widget="slider", where=c2)
    widgets.table(state.view(human.span_counts)(current, threshold), key="hl_span_counts", name="span_counts",
                  excel=True)

else:
    if not human.has_human_scores(report):
        widgets.explain(
            "This data has no human scores for its systems, so there is nothing to correlate. Human scores are a "
            "TSV with `system`, `seg_id` (1-based) and a score column (`score` or `mqm_score`), e.g. the "
            "`mqm.seg.tsv` of wmt21.en-de; upload one with your data in the sidebar.")
        st.stop()
    st.subheader("Agreement with the human scores")
    st.caption("Pearson and Kendall correlation; positive = agrees with the humans (lower-is-better metrics are "
               "negated). Segment level pools every rated (system, segment); system level compares each "
               "system's mean human score with its corpus score.")
    widgets.table(state.view(human.human_agreement)(current).reset_index(), key="hl_agreement",
                  name="human_agreement")
    metric = choices.choose(human.VIEW, "metric", current, chosen, key="hl_metric", help=None)
    segments, systems = state.view(human.human_points)(current, metric)
    left, right = st.columns(2)
    with left:
        st.markdown("**Segments**")
        widgets.chart(current, "human_segments", (metric,),
                      lambda: charts.human_scatter(segments, metric, within=report, seg_ids=report.evalset.seg_ids),
                      key="hl_seg_scatter")
    with right:
        st.markdown("**Systems** (mean human score vs corpus score)")
        widgets.chart(current, "human_systems", (metric,), lambda: charts.human_scatter(systems, metric, within=report),
                      key="hl_sys_scatter")
    st.subheader("Human ranking")
    st.caption("Mean human score per rated system (references included when rated), best first.")
    widgets.table(state.view(human.human_ranking)(current).reset_index(), key="hl_ranking", name="human_ranking")
