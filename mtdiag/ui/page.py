"""A view's page: what a layout draws, taken by name from its view's declaration (:class:`mtdiag.views.View`).

A layout (``mtdiag/ui/layouts/NAME.py``) keeps presentation only — where each choice sits, column settings, which
row opens which detail — and gets every table, chart and caption through :class:`Page`: the choices from the
declared options (:mod:`mtdiag.ui.choices`), each table and chart from its declaration, built on this run's report
with the options it reads (:attr:`mtdiag.views.Table.uses`) and cached per data, options and slice
(:func:`mtdiag.ui.state.view`, :func:`mtdiag.ui.state.memo`). So a change to a view is a change to its page, and the
page, ``mtdiag view NAME``, the HTML report and the downloads show the same frames.

A test may ask a page what it drew (:data:`RECORD`): ``tests/test_pages_are_views.py`` compares every frame a page
shows with :meth:`mtdiag.views.View.frames` of the same data and options.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import pandas as pd
import streamlit as st

from mtdiag.core import needs
from mtdiag import views
from mtdiag.core.highlight import escape_markdown
from mtdiag.ui import choices, state, widgets

RECORD = "_mtdiag_record_pages"
"""Session key: when a test sets it to a list, every page appends ``{"view", "chosen", "tables", "charts"}`` — the
options chosen, the frames it drew by table name and the charts it drew — at each table and chart it draws."""


class Page:
    """One run of view ``name``'s page on this run's data (the sidebar's slice when one is set)."""

    def __init__(self, name: str):
        self.view = views.REGISTRY[name]
        self.current = state.current()
        self.report = self.current.report
        self.chosen: dict[str, Any] = {}
        self._record = None
        self._problems: set[str] = set()  # the tables whose build said what the data lacks (shown once)
        record = st.session_state.get(RECORD)
        if isinstance(record, list):
            self._record = {"view": name, "chosen": self.chosen, "tables": {}, "charts": []}
            record.append(self._record)

    # ------------------------------------------------------------------------------------------- text

    def header(self) -> None:
        """The view's title and what it is (:attr:`mtdiag.views.View.introduction`)."""
        st.title(self.view.title)
        st.caption(escape_markdown(self.view.introduction))

    def notes(self) -> None:
        """The view's notes (:attr:`mtdiag.views.View.notes`), each in an expander under its title."""
        for title, text in self.view.notes:
            with st.expander(escape_markdown(title)):
                st.markdown(escape_markdown(text))

    def ready(self) -> bool:
        """True when the data has what the view needs; else False, the page saying what it lacks and how to give it.

        The layout then stops."""
        absent = needs.lacking(self.report.evalset, self.report.metrics, self.view.needs)
        if absent:
            need = absent[0]
            if need == "references":
                widgets.reference_needed(self.current)
            else:
                widgets.explain(escape_markdown(needs.NEEDS[need].lacking() if need in needs.NEEDS
                                                else f"This page {needs.missing_in(self.report, absent)}."))
            return False
        why = self.view.missing(self.report)  # an option with nothing to offer
        if why:
            widgets.explain(escape_markdown(why))
        return why is None

    def caption(self, name: str, built: Any = None, where=st) -> None:
        """The caption the view declares for its table or chart ``name`` (escaped: it may name systems)."""
        piece = self._piece(name)
        text = piece.describe(self.report, self.chosen, built)
        if text:
            where.caption(escape_markdown(text))

    # ------------------------------------------------------------------------------------------- one segment

    def segment_detail(self, system: str, seg: int, threshold: float | None = None) -> views.SegmentDetail:
        """One output's evidence, cached; ``seg`` 0-based.

        :func:`mtdiag.views.segment_detail`: texts, tokens, highlights, evidence tables."""
        args = (system, int(seg)) if threshold is None else (system, int(seg), threshold)
        return state.view(views.segment_detail)(self.current, *args)

    def position(self, seg_id) -> int:
        """The 0-based position in this run's report of the segment a table names ``seg_id`` (its id in the set)."""
        return views.position(self.report, int(seg_id))

    def positions(self, seg_ids) -> list[int]:
        """:meth:`position` of each id."""
        return [int(p) for p in views.positions(self.report, list(seg_ids))]

    def tokens(self, side: str, seg: int) -> views.SideTokens:
        """One text of a segment as tokens, for display (:func:`mtdiag.views.side_tokens`); ``seg`` 0-based."""
        return views.side_tokens(self.report, side, int(seg))

    # ------------------------------------------------------------------------------------------- choices

    def choose(self, name: str, **kwargs) -> Any:
        """The widget of the view's option ``name``; its value joins :attr:`chosen`.

        Drawn by :func:`mtdiag.ui.choices.view_option`, with ``key=`` and the widget's placement from the layout."""
        return choices.choose(self.view, name, self.current, self.chosen, **kwargs)

    def set(self, name: str, value: Any) -> Any:
        """Choose ``value`` for option ``name`` without a widget of its own, checked as the command line checks it.

        The layout offers it another way."""
        self.chosen[name] = self.view.option(name).resolve(self.report, self.chosen, value)
        return self.chosen[name]

    # ------------------------------------------------------------------------------------------- what it shows

    def _with_defaults(self, piece) -> dict[str, Any]:
        """The options chosen so far, with the view's default for each option ``piece`` reads that the page offers
        no widget for (as ``mtdiag view`` takes the default of a flag not given)."""
        for option in self.view.options:
            if option.name not in self.chosen and (piece.uses is None or option.name in piece.uses):
                self.chosen[option.name] = option.resolve(self.report, self.chosen)
        return self.chosen

    def _piece(self, name: str):
        names = {t.name: t for t in self.view.tables} | {c.name: c for c in self.view.charts}
        return names[name]

    def frame(self, name: str, *, spinner: str | bool = False, optional: bool = False) -> pd.DataFrame | None:
        """The view's table ``name`` on this run's data with the options chosen so far (cached).

        When there is none — the data lacks what it needs, the choices show none, or the build fails with a
        ``ValueError`` (a search past its time budget, a dimension the data lacks) — the page says why in one line and
        stops there, so a layout never reads a frame that is not there; with ``optional`` it gets None instead and draws
        without it (a table that only some choices give, as the significance against a baseline)."""
        frame = self._built(name, spinner)
        if frame is None and not optional:
            self._say_why(name)
            st.stop()
        return frame

    def _built(self, name: str, spinner: str | bool) -> pd.DataFrame | None:
        """The table ``name``, or None when there is none (a failed build's message shown once)."""
        table = self.view.table(name)
        if views.missing(self.report, table.needs):
            return None
        given = table.given(self._with_defaults(table), {"tags": self.current.tags})  # the session's inputs
        try:
            frame = state.view(table.make, spinner=spinner, name=f"{self.view.name}.{name}",
                               by=_key_of(table))(self.current, given)
        except ValueError as error:  # what these data and choices cannot give (a search past its budget, …)
            self._problem(name, error)
            return None
        if self._record is not None and frame is not None:
            self._record["tables"][name] = frame
        return frame

    def _problem(self, name: str, error: ValueError) -> None:
        """Say once, in one line, why the table or chart ``name`` failed."""
        if name not in self._problems:
            self._problems.add(name)
            st.error(escape_markdown(str(error).splitlines()[0] if str(error) else type(error).__name__),
                     icon=":material/error:")

    def _say_why(self, name: str) -> None:
        """Why the table ``name`` shows nothing: the failure already said, else what the data lacks or why the
        choices show none."""
        if name in self._problems:
            return
        table = self.view.table(name)
        lacking = views.missing(self.report, table.needs)
        widgets.explain(escape_markdown(f"This table {lacking}." if lacking
                                        else table.why_empty(self.report, self.chosen)))

    def figure(self, name: str) -> Any:
        """The view's chart ``name``: a plotly figure built once per data, options and the options it reads.

        None when the data lacks what it needs, the choices show none or its build fails (said once, in one line)."""
        chart = self.view.chart(name)
        if views.missing(self.report, chart.needs):
            return None
        given = chart.given(self._with_defaults(chart))
        try:
            return state.memo(f"{self.view.name}.{name}", getattr(self.current, _key_of(chart)),
                              tuple(sorted(given.items())), lambda: chart.make(self.report, given))
        except ValueError as error:
            self._problem(name, error)
            return None

    def detail(self, name: str, *args, **kwargs) -> Any:
        """What the view opens from a selected row (:attr:`mtdiag.views.View.details` ``[name]``).

        On this run's report with ``args``, cached per data, options and arguments."""
        return state.view(self.view.details[name], name=f"{self.view.name}.{name}")(self.current, *args, **kwargs)

    def table(self, name: str, *, key: str, title: bool = True, caption: bool = True, where=st,
              spinner: str | bool = False, **kwargs) -> int | None:
        """Draw the view's table ``name``: title, caption, grid and downloads; returns the selected row's position.

        ``title``, ``caption``: whether to draw them; the downloads are ``VIEW_TABLE.csv``…; the grid is
        :func:`mtdiag.ui.widgets.table`, whose settings ``kwargs`` pass on. The selected row's position with
        ``select=True``, else None; a table the data or the choices cannot give says why
        (:meth:`mtdiag.views.Table.why_empty`)."""
        table = self.view.table(name)
        with _inside(where):
            if title:
                st.subheader(table.title)
            frame = self._built(name, spinner)
            if frame is None:
                self._say_why(name)
                return None
            if caption:
                self.caption(name, frame)
            return widgets.table(frame, key=key, name=f"{self.view.name}_{name}", **kwargs)

    def chart(self, name: str, *, key: str, title: bool = False, caption: bool = False, where=st) -> None:
        """Draw the view's chart ``name`` (nothing when it has none for this data and these choices)."""
        chart = self.view.chart(name)
        figure = self.figure(name)
        if figure is None:
            return
        if self._record is not None:
            self._record["charts"].append(name)
        with _inside(where):
            if title:
                st.subheader(chart.title)
            st.plotly_chart(figure, key=key)
            if caption:
                self.caption(name, figure)


def _key_of(piece) -> str:
    """Which key of :class:`mtdiag.ui.state.Current` a table or chart is cached by: with the tags when it reads
    them, by the scored report when it reads the scores alone, else the run's."""
    if "tags" in piece.inputs:
        return "tagged_key"
    return "scores_key" if piece.scores_only else "key"


def _inside(where):
    """A ``with`` block that draws into ``where`` (a column or container; the page itself for ``st``)."""
    return nullcontext() if where is st else where
