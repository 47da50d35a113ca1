"""The page of a view without a layout of its own (:class:`mtdiag.views.View`): its title and what it shows, one
widget per declared option (:func:`mtdiag.ui.choices.view_option`), its charts, and each of its named tables with
their downloads (CSV and Excel, named ``VIEW_TABLE``) and captions. A table the data cannot give says what it
needs."""

from __future__ import annotations

from typing import Callable

import streamlit as st

from mtdiag import views
from mtdiag.ui.page import Page

_PAGES: dict[views.View, Callable[[], None]] = {}


def page(view: views.View) -> Callable[[], None]:
    """The function that draws ``view``'s generic page (one per view: ``st.switch_page`` finds a page by it)."""
    if view not in _PAGES:
        def draw() -> None:
            show(view.name)

        draw.__name__ = draw.__qualname__ = view.name
        _PAGES[view] = draw
    return _PAGES[view]


def show(name: str) -> None:
    """Draw view ``name`` on this run's data (the sidebar's slice when one is set)."""
    page = Page(name)
    page.header()
    if not page.ready():
        st.stop()
    for option in page.view.options:
        page.choose(option.name, key=f"{name}_{option.name}")
    for chart in page.view.charts:
        page.chart(chart.name, key=f"{name}_{chart.name}_chart", title=True, caption=True)
    for table in page.view.tables:
        page.table(table.name, key=f"{name}_{table.name}", excel=True, max_height=420)
