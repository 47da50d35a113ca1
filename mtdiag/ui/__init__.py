"""The dashboard's Streamlit layer (the only part of mtdiag that imports Streamlit).

- :mod:`mtdiag.ui.state` — the loaded data, the cached :class:`~mtdiag.api.Report` and every cached frame a page
  draws (computed once per data + options, lazily, when a page first asks);
- :mod:`mtdiag.ui.loader` — the sidebar: choose a test set or upload files, tokenisation and case options;
- :mod:`mtdiag.ui.widgets` — shared widgets: downloads, HTML blocks, segment detail, pickers, explanations;
- plotly figures live in the core, :mod:`mtdiag.charts` (the HTML report draws them too);
- :mod:`mtdiag.ui.navigation` — the page list, and the repair of a deep link served before ``st.navigation`` ran.

Pages (``pages/*.py``) import from here and only lay things out.
"""
