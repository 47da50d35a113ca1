"""The dashboard's pages, one per view of :data:`mtdiag.views.REGISTRY`, in its order: a view with a layout of its
own is drawn by its script, :mod:`mtdiag.ui.layouts` ``/NAME.py``; any other view by the generic page
(:mod:`mtdiag.ui.generic`: its option widgets, tables with downloads and charts). A page's address is its view's
name (``/segments``, ``/waft_neva``), its title the view's title.

No page has an icon: a page's icon becomes the favicon, and ``:material/…:`` favicons are fetched from
fonts.gstatic.com (the dashboard must work offline); emoji need an emoji font on the viewer's machine.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from mtdiag import views
from mtdiag.ui import generic

LAYOUTS = Path(__file__).resolve().parent / "layouts"


def layout(name: str) -> Path | None:
    """The script of view ``name``'s own layout, None when it has none (the generic page draws it)."""
    path = LAYOUTS / f"{name}.py"
    return path if path.is_file() else None


def page(view: views.View, default: bool = False) -> st.Page:
    """The page of one view: its layout's script, else the generic page; addressed by the view's name."""
    script = layout(view.name)
    return st.Page(script if script is not None else generic.page(view), title=view.title, url_path=view.name,
                   default=default)


def pages() -> list[st.Page]:
    """Every view's page, the first one the page the dashboard opens on."""
    return [page(view, default=i == 0) for i, view in enumerate(views.REGISTRY.values())]


def link_to(name: str, label: str, *, help: str | None = None, query_params: dict | None = None) -> None:
    """A link to view ``name``'s page.

    Following it is a navigation the browser makes, as a click in the sidebar's navigation is: every widget keeps
    its state (``st.switch_page`` from a run resets them)."""
    st.page_link(page(views.REGISTRY[name]), label=label, help=help, query_params=query_params,
                 icon=":material/filter_alt:")
