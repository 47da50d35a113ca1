"""N-grams: HT-only, MT-only and skewed n-grams per system and order, or the n-grams one system uses and another
never does — :mod:`mtdiag.views.ngrams`, laid out; each n-gram opens the segments that have it."""

import streamlit as st

from mtdiag.core import highlight
from mtdiag.ui import widgets
from mtdiag.ui.page import Page

page = Page("ngrams")
ev = page.current.evalset
page.header()
if not ev.has_references:
    widgets.reference_needed(page.current)  # the human-translation tables need one; two systems work without
against = page.choose("against", key="ng_mode", widget="radio", horizontal=True, help=None)
c1, c2, c3, c4 = st.columns(4)
system = page.choose("system", key="ng_system", where=c1, help=None)
page.choose("order", key="ng_order", where=c2, help=None)
min_count = page.choose("min_count", key="ng_min_count", where=c3, help=None)
page.choose("hide_function_words", key="ng_hide")

if against == "system":
    other = page.choose("other", key="ng_other", where=c4, help=None)
    if other is None:
        widgets.explain("One system: nothing to compare it with.")
        st.stop()
    side = page.choose("side", key="ng_side", widget="segmented",
                       format_func={"only_a": f"only {system}", "only_b": f"only {other}"}.__getitem__)
    owner, counterpart = (system, other) if side == "only_a" else (other, system)
    rows = page.frame("between", spinner="Counting n-grams …")
    picked = page.table("between", key=f"ng_sys_{side}", title=False, select=True, max_height=380,
                        column_order=[c for c in rows.columns if c != "segments"])
    if picked is not None:
        gram = rows.iloc[picked]
        st.markdown(f"**Segments with “{highlight.escape_markdown(gram['ngram'])}”** in "
                    f"{highlight.escape_markdown(owner)}'s output")
        widgets.html(highlight.render_legend(["ngram"]))
        widgets.segment_list(page.current, owner, page.positions(gram["segments"]), ref=counterpart,
                             spans_for=lambda seg: page.detail("highlights", owner, seg, gram["ngram"],
                                                               ref=counterpart))
    else:
        widgets.explain("Select an n-gram in the table to list the segments that contain it.")
    st.stop()

ht_ref = page.choose("ht_ref", key="ng_ht_ref", where=c4, help=None)
c1, c2 = st.columns([3, 2])
kind = page.choose("kind", key="ng_kind", where=c1, widget="segmented")
rows = page.frame("ngrams", spinner="Counting n-grams …")
picked = page.table("ngrams", key=f"ng_table_{kind}", title=False, select=True, max_height=380,
                    column_order=[c for c in rows.columns if c != "segments"])
if picked is not None:
    gram = rows.iloc[picked]
    segments = page.positions(gram["segments"])
    st.markdown(f"**Segments with “{highlight.escape_markdown(gram['ngram'])}”** ({len(segments)}; "
                f"HT {gram['ht_count']}×, {highlight.escape_markdown(system)} {gram['mt_count']}×)")
    if any(w in ("<UNK>", "<PUNC>") for w in gram["ngram"].split()):
        st.caption("A pattern with <UNK>/<PUNC> is not highlighted in the text.")
    widgets.html(highlight.render_legend(["ngram"]))
    widgets.segment_list(page.current, system, segments, ref=ht_ref,
                         spans_for=lambda seg: page.detail("highlights", system, seg, gram["ngram"], ref=ht_ref))
else:
    widgets.explain("Select an n-gram in the table to list the segments that contain it.")
