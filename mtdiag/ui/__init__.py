"""The dashboard's Streamlit layer (the only part of mtdiag that imports Streamlit).

- :mod:`mtdiag.ui.dashboard` — the entry script (``mtdiag serve`` runs it; ``app.py`` calls it);
- :mod:`mtdiag.ui.navigation` — one page per view of :data:`mtdiag.views.REGISTRY`: its layout in
  :mod:`mtdiag.ui.layouts` (``layouts/NAME.py``), else the generic page (:mod:`mtdiag.ui.generic`);
- :mod:`mtdiag.ui.sidebar` — the sidebar, made of :mod:`mtdiag.ui.offered_sets` (the test-set folders offered),
  :mod:`mtdiag.ui.uploads` (uploaded files), :mod:`mtdiag.ui.options` (tokenisation, case, metric options) and
  :mod:`mtdiag.ui.runs` (saved runs);
- :mod:`mtdiag.ui.choices` — a page's choices, drawn from the options its view declares;
- :mod:`mtdiag.ui.state` — the loaded data, the cached :class:`~mtdiag.scoring.evaluate.Report` and every cached frame a page
  draws (computed once per data + options, lazily, when a page first asks);
- :mod:`mtdiag.ui.widgets` — shared widgets: downloads, HTML blocks, segment detail, pickers, explanations;
- :mod:`mtdiag.ui.slicing` — the sidebar's slice box every page follows; :mod:`mtdiag.ui.tagging` — ticking table
  rows to tag them;
- plotly figures live in the core, :mod:`mtdiag.views.charts` (the HTML report draws them too).

The layouts import from here and from their own view, and only lay things out.
"""
