"""The views: every analysis the dashboard shows as a page, one module each, declared once in :data:`REGISTRY`
(``docs/architecture.md``, "Views are a registry").

A view module holds the frames of its analysis and one :class:`~mtdiag.views.base.View` declaration (``VIEW``): its
name (the page's address, ``mtdiag view NAME``), title, options, named tables, charts and what the data must have.
Everything else reads the registry: the dashboard's navigation and pages (a view without a layout of its own gets
a generic page: its option widgets, its tables with their downloads, its charts), the ``mtdiag view`` command
(every view's tables as JSON or TSV), the HTML report's sections and table of contents, and the page tests. A new
view is one module and its name in :data:`PAGES` (or :func:`register` at run time;
:class:`mtdiag.core.registry.Registry`: a taken name is refused).

Besides the pages' views, :mod:`mtdiag.views.detail` is one (system, segment) with its evidence, which every page
that opens a segment shows. A view may take what it shares with another view from it and hand it on under its own
name, so that a page's tables are all in its view.

Every function takes a :class:`~mtdiag.scoring.evaluate.Report` — the whole test set's, or a slice's
(:func:`mtdiag.slices.slice_report`: a slice is a report of its own) — and returns pandas frames; nothing here
scores anything, imports Streamlit or writes HTML. Inside a report a segment is its 0-based position ``seg``, and a
builder names it so alone; people see :attr:`mtdiag.core.evalset.EvalSet.seg_ids` (1-based, in a slice the segment's
id in the whole set), which :func:`with_set_ids` — the one writer of ``seg_id`` — puts in every table.
"""

from __future__ import annotations

from mtdiag.core.registry import Registry
from mtdiag.views.base import (DEFAULT_METRICS, TEST_METHODS, Chart, Table, View, ViewOption, default_metric,
                               missing)
from mtdiag.views.cells import TABLE_TEXT, fit_lines, for_table, preview, wide_script
from mtdiag.views.segment_ids import position, positions, with_set_ids
from mtdiag.views.columns import (PROBLEM_TEXT, SCORE_PLACES, MetricInfo, flag_columns, flag_help, flag_label,
                                  format_score, is_flag, is_metric, metric_info)
from mtdiag.views.detail import SPAN_THRESHOLD, SegmentDetail, SideTokens, segment_detail, side_tokens
PAGES = (
    "overview",
    "segments",
    "buckets",
    "distributions",
    "over_under",
    "waft_neva",
    "terminology",
    "ngrams",
    "human",
    "meta_evaluation",
    "compare",
    "slices",
)
"""The views' modules, in the order of the dashboard's navigation and the report's sections: a new view is its
module and its name here — the one line it adds."""

REGISTRY: Registry[View] = Registry.of_modules("view", "mtdiag.views", PAGES, lambda view: view.name,
                                                lambda module: [module.VIEW])
"""Every view, in the order of :data:`PAGES` (then those registered at run time)."""


def register(view: View) -> View:
    """Add a view to the registry (every surface picks it up).

    Its name must be new and a word (it is a page's address)."""
    return REGISTRY.register(view)


def unregister(name: str) -> None:
    """Remove view ``name`` from the registry (nothing when there is none)."""
    REGISTRY.unregister(name)


def registered(view: View, *, replace: bool = False):
    """``with registered(MY_VIEW): ...`` — the view is in the registry inside the block only.

    ``replace=True`` stands in for a registered view of that name and puts it back after
    (:meth:`Registry.registered`)."""
    return REGISTRY.registered(view, replace=replace)


__all__ = ["DEFAULT_METRICS", "PROBLEM_TEXT", "REGISTRY", "SCORE_PLACES", "format_score", "SPAN_THRESHOLD", "TABLE_TEXT", "TEST_METHODS", "Chart",
           "MetricInfo", "SegmentDetail", "SideTokens", "Table", "View", "ViewOption", "default_metric", "fit_lines",
           "flag_columns", "flag_help", "flag_label", "for_table", "is_flag", "is_metric", "metric_info", "missing",
           "position", "positions", "preview", "register", "registered", "segment_detail", "side_tokens",
           "unregister", "wide_script", "with_set_ids"]
