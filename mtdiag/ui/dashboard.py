"""The dashboard's entry script: the sidebar (data, options, saved runs, the slice box), then the page chosen in the
navigation (:mod:`mtdiag.ui.navigation`: one page per view of :data:`mtdiag.views.REGISTRY`).

``mtdiag serve [--data DIR] [--workspace DIR]`` runs this file with ``streamlit run`` (passing ``-- --data DIR
--workspace DIR``), so an installed package serves the dashboard without a checkout; ``app.py`` at the top of the
repository calls :func:`main` for ``make run``, ``streamlit run app.py`` and Streamlit Community Cloud. The dashboard
opens on the richest test set found (``--data DIR`` first, then ``sample_data/``) with nothing to click; saved runs
live in the workspace folder (``--workspace DIR``, else ``$MTDIAG_WORKSPACE``, else ``~/.mtdiag/workspace``:
:func:`mtdiag.ui.runs.workspace_argument`).
"""

from mtdiag.core.arrow_memory import use_the_system_allocator

use_the_system_allocator()  # the dashboard's process, before its first Arrow allocation (`streamlit run app.py` too)

import streamlit as st  # noqa: E402

from mtdiag.core import highlight  # noqa: E402
from mtdiag.ui import navigation, reports, sidebar, slicing, state, widgets  # noqa: E402


def main() -> None:
    """One run of the dashboard: the navigation, the sidebar, the slice, then the page.

    The first time a set is scored, the metrics derived from the others come after the page is drawn
    (:func:`mtdiag.ui.reports.complete`): the first page shows every other metric at once, then again with them."""
    st.set_page_config(page_title="mtdiag", layout="wide")  # no page_icon: a material favicon is fetched from the web
    page = st.navigation(navigation.pages())
    current, problems = sidebar.sidebar()
    for problem in problems:  # Markdown-escaped by the sidebar: they quote file names and values from the files
        st.error(problem, icon=":material/error:")
    failed = st.session_state.pop(reports.DERIVE_FAILED, None)  # said once
    if failed:
        st.warning(highlight.escape_markdown(failed), icon=":material/error:")
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
    try:
        page.run()
    except MemoryError:  # numpy's _ArrayMemoryError too: the page says so, the session and the server go on
        state.release_memory()
        st.error(state.OUT_OF_MEMORY, icon=":material/memory:")
    finally:  # the page is drawn (or stopped): now the metrics derived from the others, then the page again
        if current.pending and reports.complete(current.data, current.options):
            st.rerun()
        reports.warm_up()  # drawn again with them: what other pages import, in the background


if __name__ == "__main__":  # streamlit run mtdiag/ui/dashboard.py (mtdiag serve)
    main()
