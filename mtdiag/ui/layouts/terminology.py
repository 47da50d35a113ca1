"""Terminology: per-system term scores, per-term accuracy, and every occurrence in context with its window —
:mod:`mtdiag.views.terminology`, laid out; an occurrence opens its segment with the term and its window marked."""

import streamlit as st

from mtdiag.core import highlight
from mtdiag.ui import widgets
from mtdiag.ui.page import Page

page = Page("terminology")
ev = page.current.evalset
page.header()
if not page.ready():
    st.stop()

page.table("scores", key="tm_corpus")
st.subheader(page.view.table("terms").title)
page.choose("systems", key="tm_systems", help=None)
page.table("terms", key="tm_summary", title=False, max_height=320)

st.subheader(page.view.table("occurrences").title)
c1, c2, c3 = st.columns([2, 1, 2])
system = page.choose("system", key="tm_system", where=c1, help=None)
window = page.choose("window", key="tm_window", where=c2, help=None)
page.choose("only_missed", key="tm_missed", where=c3, help=None)
shown = page.frame("occurrences")
picked = page.table("occurrences", key="tm_occ", title=False, select=True, max_height=300)
if len(shown):
    row = shown.iloc[picked if picked is not None else 0]
    seg = page.position(row["seg_id"])
    hyp_spans, ref_spans, correct = page.detail("spans", system, seg, row["src_term"], row["tgt_terms"],
                                                int(row["k"]), window)
    st.markdown(f"**Segment {widgets.segment_number(seg)}: “{highlight.escape_markdown(row['src_term'])}” → "
                f"{highlight.escape_markdown(row['tgt_terms'])}** " + ("(right)" if correct else "(missed)")
                + ("" if picked is not None else " — the first row; select another in the table"))
    widgets.html(highlight.render_legend(["term_ok", "term_miss", "window"]))
    ref = ev.ref_names[0]
    parts = []
    if str(ev.src.iat[seg]).strip():
        parts.append(highlight.render_text(ev.src.iat[seg], label="Source"))
    parts.append(highlight.render_marked_text(ev.refs.at[seg, ref], page.tokens(ref, seg).shown, ref_spans,
                                              label=f"Reference {ref}"))
    parts.append(highlight.render_marked_text(ev.hyps.at[seg, system], page.tokens(system, seg).shown, hyp_spans,
                                              label=f"Hypothesis ({system})"))
    widgets.html("".join(parts))
else:
    widgets.explain("No occurrence to show.")
