"""A page whose table cannot be had says why in one line and stays up (:meth:`mtdiag.ui.page.Page.frame`): a search
past its time budget on the Segments page, and on every page a table whose build fails or gives nothing.

Before, ``Page.frame`` returned None and the layouts read the frame's columns ("This app has encountered an
error"): a 40-segment upload whose first segment is 300,000 characters, searched for ``.{0,999}z.{0,999}q``."""

from __future__ import annotations

import pytest

from mtdiag import views
from mtdiag.core import search
from mtdiag.views.base import Table

from tests.test_app import clear_caches, no_data_argument, shown, start, visit  # noqa: F401  (autouse fixtures)

PATTERN = ".{0,999}z.{0,999}q"


@pytest.fixture
def no_time_to_search(monkeypatch):
    """Every search of the Segments page past its time budget at once (as a long text and a costly pattern are)."""
    monkeypatch.setattr(search.columns_matching, "__defaults__", (0.0,))


@pytest.mark.parametrize("view_as", ["pairs", "sources"])
def test_a_search_past_its_budget_is_one_line_and_the_segments_page_stays_up(no_time_to_search, view_as):
    at = start()
    visit(at, "segments").run()
    at.radio(key="seg_view").set_value(view_as).run()
    at.text_input(key="seg_text").set_value(PATTERN).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [shown(e.value) for e in at.error]
    assert len(errors) == 1 and "takes too long on these texts; simplify the pattern" in errors[0]
    assert "\n" not in errors[0]
    assert at.text_input(key="seg_text").value == PATTERN  # the box stays, to simplify the pattern
    at.text_input(key="seg_text").set_value("").run()  # and without it the queue is back
    assert not at.exception and not at.error and len(at.dataframe(key="seg_table" if view_as == "pairs"
                                                                  else "seg_src_table").value)


@pytest.mark.parametrize("name", list(views.REGISTRY))
def test_every_page_whose_tables_fail_says_so_and_stays_up(monkeypatch, name):
    at = start()
    monkeypatch.setattr(Table, "make", lambda self, report, chosen: (_ for _ in ()).throw(
        ValueError(f"{self.name} cannot be built here\nsecond line")))
    visit(at, name).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [shown(e.value) for e in at.error]
    assert errors and all(e.endswith("cannot be built here") for e in errors)  # one line each


@pytest.mark.parametrize("name", list(views.REGISTRY))
def test_every_page_whose_tables_give_nothing_says_why_and_stays_up(monkeypatch, name):
    at = start()
    monkeypatch.setattr(Table, "make", lambda self, report, chosen: None)
    visit(at, name).run()
    assert not at.exception, [e.value for e in at.exception]
