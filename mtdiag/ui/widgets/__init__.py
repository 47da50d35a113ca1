"""Shared widgets: tables with downloads and row selection, HTML blocks, the segment detail, pickers.

HTML shown here is built only by :mod:`mtdiag.core.highlight` (which escapes every piece of text) and rendered with
``st.html`` (no JavaScript runs). Every user-derived string (system, reference and file names, terms, n-grams,
input messages) that reaches Markdown — ``st.markdown``/``st.caption``/banners/widget labels and help — goes through
:func:`mtdiag.core.highlight.escape_markdown`. Select-box and multiselect *options* are shown as plain text by Streamlit
and need nothing; the options of radio buttons and segmented controls are Markdown, and :func:`radio` and
:func:`segmented` escape them (:func:`as_text`): pages draw those controls through them.

The package's modules, by job: ``column_settings`` (labels, formats, segment numbers, the grid's column settings),
``grids`` (tables with pages, selection, tags and downloads; the Overview's styled corpus table), ``pickers`` (the
choice controls, which follow the data), ``blocks`` (HTML, notes, panels, charts, the report's download) and
``one_segment`` (a segment with every output and its evidence). Pages use every name through this face:
``widgets.table(...)``, ``widgets.select(...)``.
"""

from mtdiag.ui.widgets.blocks import chart, explain, html, panel, reference_needed, report_download, style
from mtdiag.ui.widgets.column_settings import (TEXT_CHAR_PX, metric_label, metric_value, number_format, segment_number,
                                               tags_width)
from mtdiag.ui.widgets.grids import corpus_table, downloads, fitted_height, table, wrapped
from mtdiag.ui.widgets.one_segment import evidence_table, segment_list, source_view
from mtdiag.ui.widgets.pickers import as_text, follow, multiselect, radio, segmented, select

__all__ = [
    "TEXT_CHAR_PX", "as_text", "chart", "corpus_table", "downloads", "evidence_table", "explain", "fitted_height",
    "follow", "html", "metric_label", "metric_value", "multiselect", "number_format", "panel", "radio",
    "reference_needed", "report_download", "segment_list", "segment_number", "segmented", "select", "source_view",
    "style", "table", "tags_width", "wrapped",
]
