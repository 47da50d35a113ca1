"""mtdiag dashboard — entry point: page navigation + the data loader in the sidebar.

Run ``streamlit run app.py`` (or ``mtdiag serve [--data DIR] [--workspace DIR]``, which passes ``-- --data DIR
--workspace DIR``). The app opens on the richest test set found (``--data DIR`` first, then ``sample_data/``) with
nothing to click; saved runs live in the workspace folder (``--workspace DIR``, else ``$MTDIAG_WORKSPACE``, else
``~/.mtdiag/workspace``: ``mtdiag.ui.loader.workspace_argument``).
Each view is a small page in ``pages/`` (listed in ``mtdiag.ui.navigation``); shared state, widgets and charts live
in ``mtdiag.ui``.
"""

import streamlit as st

from mtdiag.ui import loader, navigation, slicing, widgets

st.set_page_config(page_title="mtdiag", layout="wide")  # no page_icon: a material favicon is fetched from the web

page = st.navigation(navigation.pages())
current, problems = loader.sidebar()
for problem in problems:  # Markdown-escaped by the loader: they quote file names and values from the files
    st.error(problem, icon=":material/error:")
if current is None:
    if not problems:
        st.info("No data is loaded yet: choose a test set or upload files in the sidebar.")
    st.stop()
whole = current.evalset.n_segments
current, problem = slicing.slice_box(current)  # the sidebar's slice: every page shows the slice's numbers
if problem:
    st.warning(problem, icon=":material/filter_alt_off:")
widgets.style()
slicing.banner(current, whole)
page.run()
