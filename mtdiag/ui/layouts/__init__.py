"""The pages with a layout of their own: one Streamlit script per view, named as the view (``segments.py`` draws
:data:`mtdiag.views.REGISTRY` ``["segments"]``). :mod:`mtdiag.ui.navigation` makes them pages; they are run, never
imported. A view without a script here gets the generic page (:mod:`mtdiag.ui.generic`)."""
