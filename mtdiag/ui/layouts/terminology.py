"""Terminology: per-system term scores, per-term accuracy, and every occurrence in context with its window."""

import streamlit as st

from mtdiag import highlight
from mtdiag.ui import choices, state, widgets
from mtdiag.views import detail, terminology

current = state.current()
report, ev = current.report, current.evalset
st.title(terminology.VIEW.title)
st.caption("Exact match: share of term occurrences whose target term (or an alternative) is in the output. "
           "Window overlap (2, 3): how much of the term's context in the reference the output keeps around it. "
           "TERm: TER where a missed term word costs 2 (Alam et al. 2021). All 0–100, higher is better.")

if not terminology.has_terms(report):
    widgets.explain(
        "This data has no term annotations, so there is nothing to score here. Terms come from a `terms.tsv` "
        "(`seg_id`, `src_term`, `tgt_term`, with `|` between target alternatives), a glossary TSV (`source`, "
        "`target`, matched automatically where the source has the term and the reference its translation), or "
        "inline `<term src=… tgt=…>…</term>` tags in the source and reference. Pick a sample set with terms "
        "(e.g. tico19.en-fr or wmt21.en-ja) or upload a terms file with your data in the sidebar.")
    st.stop()

st.subheader("Per system")
widgets.table(terminology.term_scores(report), key="tm_corpus", name="term_scores")

st.subheader("Per term")
summary = state.view(terminology.term_summary)(current)
systems = widgets.multiselect("Systems", ev.systems, default=ev.systems, key="tm_systems")
summary = summary[summary["system"].isin(systems)]
st.caption(f"{summary[['src_term', 'tgt_terms']].drop_duplicates().shape[0]:,} terms; least often right first. "
           "'missed_in' lists the segments where the term is missing.")
widgets.table(summary, key="tm_summary", name="terms_per_term", max_height=320)

st.subheader("Occurrences in context")
c1, c2, c3 = st.columns([2, 1, 2])
chosen: dict = {}
system = choices.choose(terminology.VIEW, "system", current, chosen, key="tm_system", where=c1, help=None)
window = choices.choose(terminology.VIEW, "window", current, chosen, key="tm_window", where=c2, help=None)
only_missed = c3.toggle("Only missed terms", key="tm_missed")
occ = state.view(terminology.term_table)(current, system)
shown = occ[~occ["correct"]] if only_missed else occ
cols = ["seg", "src_term", "tgt_terms", "k", "correct", f"window{window}"]
picked = widgets.table(shown[cols].reset_index(drop=True), key="tm_occ", name=f"term_occurrences_{system}",
                       select=True, max_height=300)
if len(shown):
    row = shown.iloc[picked if picked is not None else 0]
    seg = int(row["seg"])
    hyp_spans, ref_spans = terminology.term_spans(report, system, row, window)
    st.markdown(f"**Segment {widgets.segment_number(seg)}: “{highlight.escape_markdown(row['src_term'])}” → "
                f"{highlight.escape_markdown(row['tgt_terms'])}** "
                + ("(right)" if row["correct"] else "(missed)")
                + ("" if picked is not None else " — the first row; select another in the table"))
    widgets.html(highlight.render_legend(["term_ok", "term_miss", "window"]))
    ref = ev.ref_names[0]
    parts = []
    if str(ev.src.iat[seg]).strip():
        parts.append(highlight.render_text(ev.src.iat[seg], label="Source"))
    parts.append(highlight.render_marked_text(ev.refs.at[seg, ref], detail.side_tokens(report, ref, seg).shown,
                                              ref_spans, label=f"Reference {ref}"))
    parts.append(highlight.render_marked_text(ev.hyps.at[seg, system],
                                              detail.side_tokens(report, system, seg).shown, hyp_spans,
                                              label=f"Hypothesis ({system})"))
    widgets.html("".join(parts))
else:
    widgets.explain("No occurrence to show.")
