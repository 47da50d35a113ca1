"""The page of a view without a layout of its own (:class:`mtdiag.views.View`): its title and what it shows, one
widget per declared option (:func:`mtdiag.ui.choices.view_option`), its charts, and each of its named tables with
their downloads (CSV and Excel, named ``VIEW_TABLE``). A table the data cannot give says what it needs."""

from __future__ import annotations

from typing import Callable

import streamlit as st

from mtdiag import views
from mtdiag.ui import choices, state, widgets

_PAGES: dict[views.View, Callable[[], None]] = {}


def page(view: views.View) -> Callable[[], None]:
    """The function that draws ``view``'s generic page (one per view: ``st.switch_page`` finds a page by it)."""
    if view not in _PAGES:
        def draw() -> None:
            show(view)

        draw.__name__ = draw.__qualname__ = view.name
        _PAGES[view] = draw
    return _PAGES[view]


def show(view: views.View) -> None:
    """Draw ``view`` on this run's data (the sidebar's slice when one is set)."""
    current = state.current()
    report = current.report
    st.title(view.title)
    st.caption(view.help[0].upper() + view.help[1:] + ".")
    why = view.missing(report)
    if why:
        widgets.explain(f"This view {why}.")
        st.stop()
    chosen: dict = {}
    for option in view.options:
        chosen[option.name] = choices.view_option(option, current, chosen, key=f"{view.name}_{option.name}")
    params = tuple(sorted(chosen.items()))
    for chart in view.charts:
        if views.missing(report, chart.needs) is None:
            figure = state.memo(f"{view.name}.{chart.name}", current.key, params, lambda: chart.build(report, chosen))
            if figure is not None:
                st.subheader(chart.title)
                st.plotly_chart(figure, key=f"{view.name}_{chart.name}_chart")
    for table in view.tables:
        st.subheader(table.title)
        lacking = views.missing(report, table.needs)
        frame = None if lacking else state.view(table.build, name=f"{view.name}.{table.name}")(current, chosen)
        if frame is None:
            widgets.explain(f"This table {lacking}." if lacking else "Nothing to show with these choices.")
            continue
        widgets.table(frame, key=f"{view.name}_{table.name}", name=f"{view.name}_{table.name}", excel=True,
                      max_height=420)
