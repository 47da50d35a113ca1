"""N-grams: HT-only, MT-only and skewed n-grams per system and order; each opens the segments that have it."""

import streamlit as st

from mtdiag import highlight
from mtdiag.ui import choices, state, widgets
from mtdiag.views import ngrams

current = state.current()
report, ev = current.report, current.evalset
st.title(ngrams.VIEW.title)
st.caption("Corpus n-gram counts of a human translation (a reference) against each system (Aikawa & Rarrick). "
           "HT-only: frequent in the human translation, never in the system (what it fails to say); MT-only: the "
           "reverse (its tics); skewed: much more frequent in one. Orders 3–4 keep the 100 most frequent human "
           "words; other words become <UNK>, punctuation <PUNC>; <s> marks the sentence start.")

modes = ["human", "system"] if ev.has_references else ["system"]
if not ev.has_references:
    widgets.reference_needed(current)  # the human-translation tables need one; two systems work without
mode = widgets.radio("Compare", modes, horizontal=True, key="ng_mode",
                     format_func={"human": "a system with the human translation",
                                  "system": "two systems (n-grams one produces and the other never does)"}.__getitem__)
c1, c2, c3, c4 = st.columns(4)
chosen: dict = {}
system = choices.choose(ngrams.VIEW, "system", current, chosen, key="ng_system", where=c1, help=None)
order = choices.choose(ngrams.VIEW, "order", current, chosen, key="ng_order", where=c2, help=None)
min_count = choices.choose(ngrams.VIEW, "min_count", current, chosen, key="ng_min_count", where=c3, help=None)
hide = choices.choose(ngrams.VIEW, "hide_function_words", current, chosen, key="ng_hide")
if mode == "system":
    others = [s for s in ev.systems if s != system]
    if not others:
        widgets.explain("One system: nothing to compare it with.")
        st.stop()
    other = widgets.select("Other system", others, key="ng_other", where=c4)
    tables = state.view(ngrams.system_ngram_rows, spinner="Counting n-grams …")(
        current, system, other, order, min_count=min_count, hide_function_words=hide)
    side = widgets.segmented("Table", ["only_a", "only_b"], key="ng_side", required=True,
                             format_func={"only_a": f"only {system}", "only_b": f"only {other}"}.__getitem__)
    rows = tables[side]
    owner, counterpart = (system, other) if side == "only_a" else (other, system)
    st.caption(f"{len(rows):,} n-grams that {highlight.escape_markdown(owner)} uses at least {min_count}× and "
               f"{highlight.escape_markdown(counterpart)} never does. Select one to see its segments.")
    picked = widgets.table(rows.drop(columns="segments"), key=f"ng_sys_{side}", select=True, max_height=380,
                           name=f"only_{owner}_vs_{counterpart}_{order}")
    if picked is not None:
        gram = rows.iloc[picked]
        st.markdown(f"**Segments with “{highlight.escape_markdown(gram['ngram'])}”** in "
                    f"{highlight.escape_markdown(owner)}'s output")
        widgets.html(highlight.render_legend(["ngram"]))
        widgets.segment_list(current, owner, [int(x) for x in gram["segments"]], ref=counterpart,
                             spans_for=lambda seg: ngrams.ngram_highlights(report, owner, seg, gram["ngram"],
                                                                            ref=counterpart))
    else:
        widgets.explain("Select an n-gram in the table to list the segments that contain it.")
    st.stop()

ht_ref = choices.choose(ngrams.VIEW, "ht_ref", current, chosen, key="ng_ht_ref", where=c4, help=None)
c1, c2 = st.columns([3, 2])
kind = choices.choose(ngrams.VIEW, "kind", current, chosen, key="ng_kind", where=c1, widget="segmented")
rows = state.view(ngrams.ngram_rows, spinner="Counting n-grams …")(current, system, order, kind, min_count=min_count,
                                                                   ht_ref=ht_ref, hide_function_words=hide)
st.caption(f"{len(rows):,} n-grams. Select one to see its segments.")
picked = widgets.table(rows.drop(columns="segments"), key=f"ng_table_{kind}", name=f"{kind}_{system}_{order}",
                       select=True, max_height=380)
if picked is not None:
    gram = rows.iloc[picked]
    segments = [int(s) for s in gram["segments"]]
    st.markdown(f"**Segments with “{highlight.escape_markdown(gram['ngram'])}”** ({len(segments)}; "
                f"HT {gram['ht_count']}×, {highlight.escape_markdown(system)} {gram['mt_count']}×)")
    if any(w in ("<UNK>", "<PUNC>") for w in gram["ngram"].split()):
        st.caption("A pattern with <UNK>/<PUNC> is not highlighted in the text.")

    def spans(seg):
        return ngrams.ngram_highlights(report, system, seg, gram["ngram"], ref=ht_ref)

    widgets.html(highlight.render_legend(["ngram"]))
    widgets.segment_list(current, system, segments, spans_for=spans, ref=ht_ref)
else:
    widgets.explain("Select an n-gram in the table to list the segments that contain it.")
