"""Segments: the worst-first queue (mtdiag.triage.ranking) as (system, segment) pairs or as sources, filters, documents,
full exports, and one source with every system's output — :mod:`mtdiag.views.segments`, laid out."""

import streamlit as st

from mtdiag.core.highlight import escape_markdown
from mtdiag.ui import campaign_download, widgets
from mtdiag.ui.page import Page

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

page = Page("segments")
st.title(page.view.title)
c1, c2, c3, c4, c5, c6 = st.columns([1.0, 2.0, 2.0, 2.4, 1.0, 1.0], vertical_alignment="bottom")
view_as = widgets.radio("View as", list(VIEWS), key="seg_view", horizontal=True, format_func=VIEWS.__getitem__,
                        where=c1, help=VIEW_HELP)
more = c5.popover("More", icon=":material/tune:", use_container_width=True)
with more:
    page.choose("strict", key="seg_strict")
    page.choose("mt_order", key="seg_mt_order")
    documents = page.choose("doc", key="seg_doc", help=None) is not None
with c6.popover("Why", icon=":material/help:", use_container_width=True):
    st.markdown(escape_markdown(page.view.introduction))
    st.caption("Here: " + escape_markdown(page.detail("signals")) + ".")
page.choose("systems", key="seg_systems", where=c2, disabled=view_as == "sources", help=None)
page.choose("flags", key="seg_flags", where=c3, disabled=view_as == "sources", help=None)
page.choose("search", key="seg_text", where=c4, placeholder="a word, or a pattern such as Pandemie|Virus or \\d+ %")

text = st.column_config.TextColumn
selected_seg, selected_system = None, None
if view_as == "pairs":
    shown = page.frame("queue", spinner="Checking every output and ranking them worst first …")
    picked = page.table("queue", key="seg_table", title=False, select=True, max_height=MAX_HEIGHT,
                        row_height=ROW_HEIGHT, page_size=PAGE_SIZE,
                        column_order=page.detail("columns", tuple(shown.columns)),
                        config={"critical": text("critical", width=CRITICAL_WIDTH,
                                                 help="a critical check (a plainly broken output) put this row ahead "
                                                      "of rows with a higher problem score"),
                                "flags": text("flags", help="the checks that fired on this output", width=FLAGS_WIDTH),
                                "src": text("src", width=SRC_WIDTH), "hyp": text("hyp", width=HYP_WIDTH)},
                        download=page.frame("export"))
    if len(shown):
        row = shown.iloc[picked if picked is not None else 0]
        selected_seg, selected_system = page.position(row["seg_id"]), str(row["system"])
else:
    page.choose("sort_sources", key="seg_src_sort", widget="radio", horizontal=True, help=None)
    shown = page.frame("sources")
    order = ["seg_id", "difficulty", "spread", "worst_system", "worst_problem", "src", "doc"]
    picked = page.table("sources", key="seg_src_table", title=False, select=True, max_height=MAX_HEIGHT,
                        row_height=ROW_HEIGHT, page_size=PAGE_SIZE,
                        column_order=[c for c in order if c in shown.columns],
                        config={"difficulty": st.column_config.ProgressColumn(
                                    "difficulty", min_value=0.0, max_value=1.0, format="%.3f",
                                    help="mean problem score of all systems on this source"),
                                "spread": st.column_config.NumberColumn(
                                    "spread", format="%.3f", help="max − min problem score over systems"),
                                "worst_problem": st.column_config.NumberColumn(
                                    "worst problem", format="%.3f",
                                    help="the problem score of the worst system on this source")},
                        download=page.frame("export"))
    if len(shown):
        row = shown.iloc[picked if picked is not None else 0]
        selected_seg, selected_system = page.position(row["seg_id"]), str(row["worst_system"])

if documents:
    with widgets.panel(page.view.table("documents").title, key="seg_documents") as panel:
        if panel.open:  # drawn only while open (widgets.panel)
            page.table("documents", key="seg_docs", title=False, excel=True)

if selected_seg is None:
    page.set("span_threshold", None)  # the view's default, for the campaign below
    widgets.explain("No row matches these filters.")
else:
    if picked is None:
        st.caption("Showing the first row; select a row in the table to open another.")
    threshold = page.choose("span_threshold", key="seg_span_threshold", widget="slider",
                            where=st.columns([2, 1])[1])
    widgets.source_view(page, selected_seg, selected_system, key="seg_detail", threshold=threshold)
with more:  # the queue as filtered, as a Pearmut campaign (drawn last: it needs the rows and the span threshold)
    rows = page.frame("queue") if view_as == "pairs" else page.frame("export")
    pairs = rows[["system"]].assign(seg=page.positions(rows["seg_id"]))  # the rows' segments by position
    campaign_download.campaign_download(page.current, pairs, page.chosen["span_threshold"], key="seg_pearmut")
