"""The dashboard's pages (one list for ``app.py`` and for the bootstrap below).

Streamlit serves a ``pages/`` folder next to the entry script in its old "pages directory" mode until some
session runs ``st.navigation`` (then, for the life of the server, it ignores the folder). So the very first request
of a fresh server for a deep link such as ``/segments`` runs ``pages/segments.py`` on its own, without ``app.py``
— no sidebar, no data. :func:`bootstrap` repairs that run: it declares the navigation (public API), which switches
the server to ``st.navigation`` mode, and reruns, so that ``app.py`` runs and shows the page asked for.
"""

from __future__ import annotations

import streamlit as st

PAGES = (
    ("pages/overview.py", "Overview"),
    ("pages/segments.py", "Segments"),
    ("pages/buckets.py", "Buckets"),
    ("pages/distributions.py", "Distributions"),
    ("pages/over_under.py", "Over/under-translation"),
    ("pages/waft_neva.py", "WAFT vs NEVA"),
    ("pages/terminology.py", "Terminology"),
    ("pages/ngrams.py", "N-grams"),
    ("pages/likeness.py", "Human likeness & human scores"),
    ("pages/compare.py", "Compare"),
    ("pages/slices.py", "Slice finder"),
)
# No page icons: a page's icon becomes the favicon, and ":material/…:" favicons are fetched from fonts.gstatic.com
# (the app must work offline); emoji need an emoji font on the viewer's machine.
_BOOTSTRAPPED = "_mtdiag_bootstrapped"


def pages() -> list:
    return [st.Page(path, title=title, default=(i == 0)) for i, (path, title) in enumerate(PAGES)]


def bootstrap() -> bool:
    """Called by a page that finds no data: if ``app.py`` did not run (the pages-directory detour), declare the
    navigation and rerun once. Returns False when that was already tried in this session."""
    if st.session_state.get(_BOOTSTRAPPED):
        return False
    st.session_state[_BOOTSTRAPPED] = True
    st.navigation(pages(), position="hidden")
    st.rerun()
    return True  # not reached: st.rerun() stops this run
