"""The mtdiag dashboard for ``make run``, ``streamlit run app.py`` and Streamlit Community Cloud: the packaged entry,
:func:`mtdiag.ui.dashboard.main` (``mtdiag serve`` runs that module itself)."""

from mtdiag.ui.dashboard import main

main()
