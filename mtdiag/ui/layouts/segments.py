"""Segments: the worst-first queue (mtdiag.triage) as (system, segment) pairs or as sources, filters, documents,
full exports, and one source with every system's output."""

import streamlit as st

from mtdiag import checks, search, triage
from mtdiag.highlight import escape_markdown
from mtdiag.ui import choices, pearmut, state, widgets
from mtdiag.views import segments
from mtdiag.views.detail import SPAN_THRESHOLD

VIEWS = {"pairs": "pairs", "sources": "sources"}
VIEW_HELP = ("pairs: every (system, segment) pair, worst first; sources: every source segment with all its systems, "
             "the hardest (or the one systems disagree on most) first")
PAGE_SIZE = 1000  # rows per page of the segment tables: the browser gets a page, not every pair
ROW_HEIGHT = 68  # pixels: three lines of wrapped text (widgets.wrapped cuts each text to what three lines show)
FIRST_SCREEN_ROWS = 10  # with the controls on one line above it, a 1,000-pixel-high window shows ten rows
MAX_HEIGHT = widgets.fitted_height(FIRST_SCREEN_ROWS, 10_000, ROW_HEIGHT)
# pixels: at 1,600 px the critical marker, the flags, the problem score, the source and the output fit beside
# system and seg_id
CRITICAL_WIDTH, FLAGS_WIDTH, SRC_WIDTH, HYP_WIDTH = 75, 140, 285, 345
SOURCE_ORDER = {"difficulty": "difficulty (mean problem over systems)", "spread": "spread (systems disagree)"}

current = state.current()
report, ev = current.report, current.evalset
st.title(segments.VIEW.title)
c1, c2, c3, c4, c5, c6 = st.columns([1.0, 2.0, 2.0, 2.4, 1.0, 1.0], vertical_alignment="bottom")
view_as = widgets.radio("View as", list(VIEWS), key="seg_view", horizontal=True, format_func=VIEWS.__getitem__,
                        where=c1, help=VIEW_HELP)
more = c5.popover("More", icon=":material/tune:", use_container_width=True)
with more:
    strict = choices.choose(segments.VIEW, "strict", current, {}, key="seg_strict")
    mt_order = widgets.select("MT-only n-grams of order", [0, 1, 2, 3, 4], key="seg_mt_order",
                              format_func={0: "off", **{o: f"{o}-grams" for o in (1, 2, 3, 4)}}.__getitem__,
                              help="Flag outputs containing an n-gram the system uses ≥ 2 times and the human "
                                   "translation (first reference) never uses.")
    documents = segments.documents(report)
    doc = None
    if documents:  # options are positions (0: every document): a select box shows a None value as an empty box
        picked_doc = widgets.select("Document", range(len(documents) + 1), key="seg_doc",
                                    format_func=["(all documents)", *documents].__getitem__)
        doc = documents[picked_doc - 1] if picked_doc else None
with c6.popover("Why", icon=":material/help:", use_container_width=True):
    st.markdown("**Worst first.** " + triage.PROBLEM_TEXT + "; the same order as `mtdiag triage`. A row whose "
                "`critical` column names a check is a plainly broken output and comes before rows of higher problem. "
                "Select a row to open its source with every system's output.")
    st.caption("Here: " + escape_markdown(state.view(triage.signals)(current)) + ".")
requested = checks.freeze({"mt_only_ngram": {"order": mt_order}} if mt_order else None)
queue = state.view(segments.queue, spinner="Checking every output and ranking them worst first …")(
    current, requested=requested, strict=strict)
flags = checks.flag_columns(queue)
systems = widgets.multiselect("Systems", ev.systems, default=ev.systems, key="seg_systems", where=c2,
                              disabled=view_as == "sources")
chosen_flags = widgets.multiselect("Flags (any of)", flags, key="seg_flags", where=c3, disabled=view_as == "sources",
                                   format_func={f: checks.REGISTRY[f].label for f in flags}.__getitem__)
pattern = c4.text_input("Search source, references and outputs (regular expression)", key="seg_text",
                        max_chars=search.MAX_PATTERN_CHARS,
                        placeholder="a word, or a pattern such as Pandemie|Virus or \\d+ %",
                        help="Case-insensitive; a plain word matches anywhere in a text.")


def text_filtered(frame):
    """``frame`` kept to the rows the search pattern matches (all rows, and an error shown, when it is invalid)."""
    if not pattern.strip():
        return frame
    try:
        return segments.text_filter(report, frame, pattern.strip())
    except ValueError as exc:
        st.error(escape_markdown(str(exc)), icon=":material/error:")
        return frame


selected_seg, selected_system = None, None
if view_as == "pairs":
    shown = queue[queue["system"].isin(systems)]
    if chosen_flags:
        shown = shown[shown[chosen_flags].any(axis=1)]
    if doc is not None:
        shown = shown[shown["doc"] == doc]
    shown = text_filtered(shown).reset_index(drop=True)
    st.caption(f"{len(shown):,} of {len(queue):,} rows, worst first")
    order = segments.queue_columns(report, shown)
    text = st.column_config.TextColumn
    readable = {c: shown[c].str.replace(",", ", ") for c in ("flags", "critical") if c in shown}  # wrap at names
    picked = widgets.table(shown.assign(**readable), key="seg_table", name="segments", select=True,
                           max_height=MAX_HEIGHT, row_height=ROW_HEIGHT, page_size=PAGE_SIZE, column_order=order,
                           config={"critical": text("critical", width=CRITICAL_WIDTH,
                                                    help="a critical check (a plainly broken output) put this row "
                                                         "ahead of rows with a higher problem score"),
                                   "flags": text("flags", help="the checks that fired on this output",
                                                 width=FLAGS_WIDTH),
                                   "src": text("src", width=SRC_WIDTH), "hyp": text("hyp", width=HYP_WIDTH)},
                           download=segments.segment_export(report, shown))
    if len(shown):
        row = shown.iloc[picked if picked is not None else 0]
        selected_seg, selected_system = int(row["seg_id"]), str(row["system"])
else:
    sources = state.view(segments.sources)(current)
    by = widgets.radio("Sort sources by", list(SOURCE_ORDER), key="seg_src_sort", horizontal=True,
                       format_func=SOURCE_ORDER.__getitem__)
    shown = sources.sort_values([by, "seg_id"], ascending=[False, True], kind="stable")
    if doc is not None:
        shown = shown[shown["doc"] == doc]
    shown = text_filtered(shown).reset_index(drop=True)
    st.caption(f"{len(shown):,} of {len(sources):,} sources")
    order = ["seg_id", "difficulty", "spread", "worst_system", "worst_problem", "src", "doc"]
    rows = queue[queue["seg_id"].isin(shown["seg_id"])]
    picked = widgets.table(shown, key="seg_src_table", name="sources", select=True,
                           max_height=MAX_HEIGHT, row_height=ROW_HEIGHT, page_size=PAGE_SIZE,
                           column_order=[c for c in order if c in shown.columns],
                           config={"difficulty": st.column_config.ProgressColumn(
                                       "difficulty", min_value=0.0, max_value=1.0, format="%.3f",
                                       help="mean problem score of all systems on this source"),
                                   "spread": st.column_config.NumberColumn(
                                       "spread", format="%.3f", help="max − min problem score over systems"),
                                   "worst_problem": st.column_config.NumberColumn(
                                       "worst problem", format="%.3f",
                                       help="the problem score of the worst system on this source")},
                           download=segments.segment_export(report, rows))
    if len(shown):
        row = shown.iloc[picked if picked is not None else 0]
        selected_seg, selected_system = int(row["seg_id"]), str(row["worst_system"])

if documents:
    with widgets.panel("Per document: corpus scores", key="seg_documents") as per_document:
        if per_document.open:
            st.caption("Every metric by its corpus formula on the document's segments (statistics summed, not "
                       "segment scores averaged).")
            widgets.table(state.view(segments.document_scores)(current), key="seg_docs", name="documents",
                          excel=True)

threshold = SPAN_THRESHOLD.default
if selected_seg is None:
    widgets.explain("No row matches these filters.")
else:
    if picked is None:
        st.caption("Showing the first row; select a row in the table to open another.")
    threshold = choices.choose(segments.VIEW, "span_threshold", current, {}, key="seg_span_threshold",
                               widget="slider", where=st.columns([2, 1])[1])
    widgets.source_view(current, selected_seg, selected_system, key="seg_detail", threshold=threshold)
with more:  # the queue as filtered, as a Pearmut campaign (drawn last: it needs the rows and the span threshold)
    pearmut.campaign_download(current, shown if view_as == "pairs" else rows, threshold, key="seg_pearmut")
