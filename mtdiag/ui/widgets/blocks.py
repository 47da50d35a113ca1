"""HTML blocks, notes, optional panels, charts and the report's download button of a page."""

from __future__ import annotations

import re
from typing import Callable, Sequence

import streamlit as st

from mtdiag.core import highlight
from mtdiag.pipeline.inputs import NO_REFERENCE
from mtdiag.ui import state

PAGE_STYLE = "<style>[data-testid='stMainBlockContainer']{padding-top:3rem;}</style>"
"""The page starts 3 rem from the top instead of Streamlit's 6: the Segments page's first ten rows fit a 1,000-pixel
window."""


def style() -> None:
    """The highlight CSS and the page's own (once per page run)."""
    st.html(highlight.STYLE + PAGE_STYLE)


def html(body: str) -> None:
    """Render HTML built by :mod:`mtdiag.core.highlight` (escaped there)."""
    st.html(body)


def explain(text: str) -> None:
    """Show ``text`` on the page in an info box."""
    st.info(text, icon=":material/info:")


def panel(label: str, *, key: str, where=st):
    """An optional panel: an expander that tracks whether it is open (``on_change="rerun"``).

    Its ``.open`` is True only while the user has it open, so a page draws (and computes) the panel's content only
    then — a closed expander's content was built, sent and laid out by the browser on every run (the Overview's
    signatures cost the browser 0.7 s of syntax highlighting, unseen). Opening or closing it reruns the page."""
    return where.expander(label, key=key, on_change="rerun")


def reference_needed(current: state.Current) -> bool:
    """True when the data has no reference, with one sentence on the page saying why and what to upload.

    The caller stops or offers what works without one."""
    if current.evalset.has_references:
        return False
    explain(NO_REFERENCE[0].upper() + NO_REFERENCE[1:] + ".")
    return True


# --------------------------------------------------------------------------------------------- charts


def chart(current: state.Current, kind: str, params: Sequence, build: Callable, *, key: str, where=st) -> None:
    """A plotly chart built once per (kind, data, options, params) — see :func:`mtdiag.ui.state.memo`."""
    where.plotly_chart(state.memo(kind, current.key, tuple(params), build), key=key)


def report_download(current: state.Current, *, key: str) -> None:
    """A button that downloads the self-contained HTML report of the current data and options.

    The report (:func:`mtdiag.report.html_report.html_report`) is built on click, on Streamlit's download thread (the
    report's module is imported there too: it is not needed to draw the button)."""
    report, tags = current.report, current.tags
    name = re.sub(r"[^\w.-]+", "_", report.evalset.name)

    def build() -> str:
        from mtdiag.report.html_report import html_report

        return html_report(report, tags=tags)

    st.download_button("Download HTML report", data=build, file_name=f"mtdiag-report-{name}.html",
                       mime="text/html", key=key, icon=":material/share:",
                       help="One HTML file with the overview, ranked significance, buckets and the worst segments "
                            "with their evidence; opens in any browser, offline.")
