"""Streamlit's command line with the dashboard's modules imported while the browser loads: ``python -m
mtdiag.ui.serve run SCRIPT [flags]`` is ``streamlit run SCRIPT [flags]`` (``mtdiag serve`` and ``make run`` use it).

Streamlit runs the dashboard's script only once a browser session has connected, so the first run imported every
module the first page needs (0.6-0.8 s of the first page's wait on this project's 2-core machine) while the
server had sat idle for the 1-2 s the browser took to load and start Streamlit's frontend. Here a background
thread imports them in that time (:func:`import_the_dashboard`); the script's own imports then find them loaded
(Python's import lock makes a run that starts mid-import wait for that module, never import it twice).

- The thread waits until Streamlit's runtime has started: the dashboard's modules declare ``st.cache_data``
  functions, which take the runtime's cache storage when they are declared (declared before it exists, they would
  keep a storage of their own and Streamlit would warn); started earlier, the imports also delayed the server's
  own start.
- It imports with the thread switch interval shortened (:func:`mtdiag.core.gil.quick_gil_handoff`): the server
  sends the browser Streamlit's frontend (megabytes of JavaScript) meanwhile, and its event loop would wait up to
  5 ms for the GIL between two steps.
- An import that fails here is left to the script, whose own import raises it where Streamlit reports it.

``streamlit run app.py`` (Streamlit Community Cloud) works as before, without the head start. docs/scaling.md
("Start → first page: the dashboard's modules imported while the browser loads") has the figures.
"""

from __future__ import annotations

import importlib
import sys
import threading
import time

from mtdiag.core.gil import quick_gil_handoff

RUNTIME_WAIT_S = 60.0
"""How long the import thread waits for Streamlit's runtime before it gives up (the server failed to start)."""

FIRST_PAGE_MODULES = ("mtdiag.ui.dashboard", "mtdiag.report.export", "pandas.io.formats.style")
"""What the dashboard's first run imports (its script and the Overview's; the rest comes with them), and what the
Overview's styled table imports on first use (pandas' Styler compiles its HTML template on import); plotly's
figure classes are warmed by :func:`_draw_a_first_figure`."""


def import_the_dashboard(poll_s: float = 0.02) -> None:
    """Import :data:`FIRST_PAGE_MODULES` once Streamlit's runtime has started (none when it never does)."""
    from streamlit.runtime import Runtime, RuntimeState

    deadline = time.monotonic() + RUNTIME_WAIT_S
    while not Runtime.exists() or Runtime.instance().state == RuntimeState.INITIAL:
        if time.monotonic() > deadline:
            return
        time.sleep(poll_s)
    try:
        with quick_gil_handoff():
            for name in FIRST_PAGE_MODULES:
                importlib.import_module(name)
            _draw_a_first_figure()
    except Exception:  # noqa: BLE001 — the script's own import raises it again, where Streamlit reports it
        return


def _draw_a_first_figure():
    """One small figure of the Overview's kinds (bars with error bars in titled subplots, a heatmap), built for
    nothing else (the import thread drops it): plotly makes the validators of each of its figure classes on first
    use, about 0.1 s of the first page's charts."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    figure = make_subplots(rows=1, cols=2, subplot_titles=["bars", "heatmap"])
    figure.add_trace(go.Bar(x=["a", "b"], y=[1.0, 2.0], error_y=dict(type="data", array=[0.1, 0.2])), row=1, col=1)
    figure.add_trace(go.Heatmap(z=[[0.0, 1.0], [1.0, 0.0]], colorbar=dict(title="p")), row=1, col=2)
    figure.update_xaxes(tickangle=-30, automargin=True)
    return figure


def main(argv: list[str] | None = None) -> None:
    """Run Streamlit's command line on ``argv`` (default: this process's arguments) with the import thread started.

    Streamlit's command line exits the process with its own status."""
    from streamlit.web.cli import main as streamlit_main

    threading.Thread(target=import_the_dashboard, name="mtdiag-import-dashboard", daemon=True).start()
    sys.argv = ["streamlit", *(sys.argv[1:] if argv is None else argv)]
    streamlit_main(prog_name="streamlit")


if __name__ == "__main__":
    main()
